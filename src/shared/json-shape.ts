// A linear pass over JSON text that measures its shape before JSON.parse builds it. JSON.parse has
// no depth limit (8 MB of brackets cost seconds and a gigabyte), and an array past V8's element
// limit is a fatal error that ends the process rather than an exception. serde_json (anvil, reth)
// stops at depth 128; the text from outside is checked against limits like that first.

export interface JsonLimits {
  /** Deepest nesting of arrays and objects. */
  maxDepth: number
  /** Most elements in one array. */
  maxArrayLength?: number
  /** Most values in the whole document (array elements and object members). */
  maxValues?: number
}

/** Why a text was refused: the limit it passed, and a message to follow "the JSON". */
export interface JsonShapeProblem {
  limit: 'depth' | 'array' | 'values'
  message: string
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * What is wrong with the shape of `text`, or undefined when it is within `limits`. Syntax is left
 * to JSON.parse: malformed text passes here and fails there. Strings are skipped with indexOf, so
 * megabytes of hex cost a native scan.
 */
export function jsonShapeProblem(text: string, limits: JsonLimits): JsonShapeProblem | undefined {
  const { maxDepth } = limits
  const maxArray = limits.maxArrayLength ?? Number.POSITIVE_INFINITY
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY
  // Per open container: its element count so far (arrays), or -1 (objects, whose members are counted by their values).
  const counts = new Float64Array(maxDepth + 1)
  let depth = 0
  let values = 0
  let sawValue = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = closingQuote(text, i)
      if (i < 0) return undefined
      sawValue = true
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (depth === maxDepth) return { limit: 'depth', message: `nests deeper than ${maxDepth} levels` }
      counts[++depth] = c === OPEN_ARRAY ? 0 : -1
      sawValue = false
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth === 0) return undefined
      if (sawValue && counts[depth] >= 0) counts[depth]++
      if (counts[depth] > maxArray) return { limit: 'array', message: `has an array of more than ${maxArray} elements` }
      if (sawValue && ++values > maxValues) return { limit: 'values', message: `has more than ${maxValues} values` }
      depth--
      sawValue = true
    } else if (c === COMMA) {
      if (depth > 0 && counts[depth] >= 0 && ++counts[depth] > maxArray)
        return { limit: 'array', message: `has an array of more than ${maxArray} elements` }
      if (++values > maxValues) return { limit: 'values', message: `has more than ${maxValues} values` }
      sawValue = false
    } else if (c > 0x20) {
      sawValue = true
    }
  }
  return undefined
}

/** Index of the quote that closes the string opened at `open`, or -1 when it never closes. */
function closingQuote(text: string, open: number): number {
  let at = open
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at < 0) return -1
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
}
