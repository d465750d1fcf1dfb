// Transactions the protocol refuses before they run (runTx throws): ethereumjs' messages read
// into a kind and geth's text, so callers answer as geth does (clients match these texts) and the
// simulation can give each kind its spec code. The only place that parses ethereumjs' wording.

export type RefusalKind = 'funds' | 'feeCap' | 'intrinsicGas' | 'nonce' | 'initcode'

export interface Refusal {
  kind: RefusalKind
  /** geth's text for it. */
  message: string
  /** ethereumjs' own message, trimmed of its block and tx context. */
  detail: string
}

/** The refusal behind a runTx (or transaction-building) error, or undefined for anything else. */
export function refusalOf(error: unknown): Refusal | undefined {
  const text = error instanceof Error ? error.message : String(error)
  const detail = text.split(' -> ')[0].split(' (block number')[0]
  const funds =
    /upfront cost is: (\d+) and the sender's account \((0x[0-9a-fA-F]+)\) only has: (\d+)/.exec(text) ??
    /max cost is: (\d+) and the sender's account \((0x[0-9a-fA-F]+)\) only has: (\d+)/.exec(text)
  if (funds) {
    return {
      kind: 'funds',
      message: `insufficient funds for gas * price + value: address ${funds[2]} have ${funds[3]} want ${funds[1]}`,
      detail,
    }
  }
  if (/enough funds|upfront cost|max cost/.test(text)) {
    return { kind: 'funds', message: `insufficient funds for gas * price + value: ${detail}`, detail }
  }
  const fee = /\((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/.exec(text)
  if (fee) {
    return {
      kind: 'feeCap',
      message: `max fee per gas less than block base fee: maxFeePerGas: ${fee[1]}, baseFee: ${fee[2]}`,
      detail,
    }
  }
  if (/baseFeePerGas|blobGasPrice/.test(text)) return { kind: 'feeCap', message: detail, detail }
  const intrinsic = /tx gas limit (\d+) is lower than the minimum gas limit of (\d+)/.exec(text)
  if (intrinsic)
    return { kind: 'intrinsicGas', message: `intrinsic gas too low: have ${intrinsic[1]}, want ${intrinsic[2]}`, detail }
  if (/INTRINSIC_GAS_TOO_LOW|minimum gas limit|intrinsic/i.test(text)) {
    return { kind: 'intrinsicGas', message: `intrinsic gas too low: ${detail}`, detail }
  }
  if (/doesn't have the correct nonce/.test(text)) return { kind: 'nonce', message: detail, detail }
  if (/initcode/i.test(text)) {
    // geth's core.ErrMaxInitCodeSizeExceeded, with its numbers when ethereumjs gives them.
    const sizes = /it is (\d+) while the max is (\d+)/.exec(text)
    const message = sizes ? `max initcode size exceeded: code size ${sizes[1]} limit ${sizes[2]}` : 'max initcode size exceeded'
    return { kind: 'initcode', message, detail }
  }
  return undefined
}
