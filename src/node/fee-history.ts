// eth_feeHistory over the chain's blocks (geth's shape and reward percentiles), with the fees of
// the block after the newest one as the producer's rules give them.
import type { Chain } from './chain/chain.js'
import type { Engine } from './engine/index.js'
import type { BlockRecord, BlockRef, HeaderFields } from './types.js'

export interface FeeHistory {
  oldestBlock: bigint
  baseFeePerGas: bigint[]
  gasUsedRatio: number[]
  baseFeePerBlobGas: bigint[]
  blobGasUsedRatio: number[]
  reward?: bigint[][]
}

/** eth_feeHistory: `count` blocks up to `newest`, with the fees of the block after it (geth's shape). */
export function feeHistory(
  chain: Chain,
  engine: Engine,
  count: number,
  newest: BlockRef,
  percentiles: number[] | undefined,
  /** The fees of the block after a sealed one (the producer's rules: Ethereum's or an OP stack's). */
  nextFees: (parent: HeaderFields) => { baseFee: bigint; blobGasPrice: bigint },
): FeeHistory {
  const last = chain.resolve(newest)
  const lastNumber = last.header.number
  // From the chain's first block at most (a fork's fee history before it is not served).
  const first = lastNumber - BigInt(count) + 1n > chain.first ? lastNumber - BigInt(count) + 1n : chain.first
  const out: FeeHistory = { oldestBlock: first, baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] }
  if (percentiles) out.reward = []
  const maxBlobGas = engine.maxBlobGasPerBlock()
  for (let n = first; n <= lastNumber; n++) {
    const block = n === lastNumber ? last : chain.resolve({ number: n })
    const h = block.header
    out.baseFeePerGas.push(h.baseFeePerGas)
    out.gasUsedRatio.push(h.gasLimit > 0n ? Number(h.gasUsed) / Number(h.gasLimit) : 0)
    out.baseFeePerBlobGas.push(engine.header(h).blobGasPrice())
    out.blobGasUsedRatio.push(maxBlobGas > 0n ? Number(h.blobGasUsed) / Number(maxBlobGas) : 0)
    if (out.reward && percentiles) out.reward.push(rewards(block, percentiles))
  }
  // The base fee after the newest block, as geth appends it.
  const next = last.sealed ? nextFees(last.header) : undefined
  out.baseFeePerGas.push(next ? next.baseFee : last.header.baseFeePerGas)
  out.baseFeePerBlobGas.push(next ? next.blobGasPrice : (out.baseFeePerBlobGas.at(-1) ?? 1n))
  return out
}

/**
 * The tips at the given gas-weighted percentiles of a block's transactions (geth's rule). A
 * transaction paying no tip over the base fee counts as 0, as reth's `unwrap_or_default`: an
 * OP-stack deposit's gas price is 0, which made every empty Base block's reward -baseFee.
 */
function rewards(block: BlockRecord, percentiles: number[]): bigint[] {
  const baseFee = block.header.baseFeePerGas
  const tipOf = (price: bigint) => (price > baseFee ? price - baseFee : 0n)
  const tips = block.txs
    .map((t) => ({ tip: tipOf(t.receipt.effectiveGasPrice), gas: t.receipt.gasUsed }))
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
  if (tips.length === 0) return percentiles.map(() => 0n)
  const total = tips.reduce((s, t) => s + t.gas, 0n)
  return percentiles.map((p) => {
    const threshold = (Number(total) * p) / 100
    let sum = 0
    for (const t of tips) {
      sum += Number(t.gas)
      if (sum >= threshold) return t.tip
    }
    return tips[tips.length - 1].tip
  })
}
