#!/usr/bin/env node
// Runs the built CLI (one bundle: scripts/bundle.mjs); `npm ci` builds it (the prepare script).
import('../dist/bundle/cli.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist')) {
    console.error('pcnode: not built yet; run `npm run build` (npm ci does it) first.')
  } else {
    console.error(error)
  }
  process.exit(1)
})
