// Upstream URLs as pcnode prints them: RPC providers put the API key in the path
// (https://base-mainnet.g.alchemy.com/v2/KEY, https://mainnet.infura.io/v3/KEY), in the query
// (?apikey=KEY) or in the user info; none of it may reach a banner, a log line or an error.

/** A path segment that looks like a key: long, and letters mixed with digits (not "v2", "rpc"). */
const KEY_LIKE = /^(?=.*\d)(?=.*[a-zA-Z])[\w-]{16,}$|^[0-9a-fA-F]{24,}$/

export function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return '<invalid URL>'
  }
  if (parsed.username || parsed.password) {
    parsed.username = '***'
    parsed.password = ''
  }
  parsed.pathname = parsed.pathname
    .split('/')
    .map((segment) => (KEY_LIKE.test(segment) ? '***' : segment))
    .join('/')
  for (const key of [...parsed.searchParams.keys()]) parsed.searchParams.set(key, '***')
  // URL encodes the asterisks of the query; show them as typed.
  return parsed.toString().replace(/%2A/g, '*')
}
