// The explorer page's stylesheet: one column that fits a 375 px phone screen (long hashes wrap, rows
// wrap instead of scrolling sideways), the same palette as the example app's page.

export const EXPLORER_STYLE = `
  :root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; line-height: 1.4; }
  body { margin: 0; }
  main { max-width: 900px; margin: 1rem auto; padding: 0 .75rem; overflow-wrap: anywhere; }
  h1 { font-size: 1.3rem; margin: .2rem 0; } h2 { font-size: 1.05rem; margin: 0 0 .4rem; }
  h3 { font-size: .95rem; margin: .8rem 0 .3rem; }
  section { background: #fff; border: 1px solid #d8dde3; border-radius: 8px; padding: .8rem 1rem; margin: .8rem 0; min-width: 0; }
  form { display: flex; gap: .5rem; }
  input { flex: 1; min-width: 0; box-sizing: border-box; padding: .45rem .5rem; border: 1px solid #c4cad1; border-radius: 6px; font: inherit; }
  button { padding: .45rem .9rem; border: 0; border-radius: 6px; background: #0052ff; color: #fff; font: inherit; cursor: pointer; }
  a { color: #0040c7; text-decoration: none; } a:hover { text-decoration: underline; }
  code, .mono { font-family: ui-monospace, monospace; font-size: .85rem; overflow-wrap: anywhere; word-break: break-all; }
  dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .3rem .8rem; margin: .4rem 0; }
  dt { font-weight: 600; color: #4a525c; } dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
  @media (max-width: 520px) { dl { grid-template-columns: minmax(0, 1fr); gap: 0; } dd { margin-bottom: .35rem; } }
  ul.rows { list-style: none; padding: 0; margin: 0; }
  ul.rows li { display: flex; flex-wrap: wrap; gap: .2rem .9rem; padding: .35rem 0; border-top: 1px solid #eceff2; font-size: .9rem; min-width: 0; }
  ul.rows li:first-child { border-top: 0; }
  ul.rows li > * { min-width: 0; overflow-wrap: anywhere; word-break: break-all; }
  .muted, small { color: #6a737d; }
  .ok { color: #067a3c; } .bad { color: #b3261e; }
  .reason { background: #fdecea; border: 1px solid #e6a19b; border-radius: 6px; padding: .4rem .6rem; }
  ul.tree { list-style: none; padding-left: .9rem; margin: .2rem 0; border-left: 2px solid #d8dde3; font-size: .85rem; }
  ul.tree li { margin: .25rem 0; overflow-wrap: anywhere; word-break: break-all; }
  pre { white-space: pre-wrap; margin: .2rem 0; }
  .log { border-top: 1px solid #eceff2; padding: .3rem 0; } .log .decoded { font-weight: 600; }
  #flash-list li, #flash-prev-list li { gap: .2rem .6rem; }
`
