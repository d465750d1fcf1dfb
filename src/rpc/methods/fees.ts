// Fee suggestions and history.
import { expectArgs } from '../dispatch.js'
import { invalidParams } from '../errors.js'
import { parseQuantity, toQuantity } from '../hex.js'
import { parseBlockRef } from '../params.js'
import type { MethodGroup } from './group.js'

const MAX_FEE_HISTORY = 1024

export const feeMethods: MethodGroup = (node) => ({
  eth_gasPrice: () => toQuantity(node.gasPrice()),
  eth_maxPriorityFeePerGas: () => toQuantity(node.maxPriorityFeePerGas()),
  eth_blobBaseFee: () => toQuantity(node.feeHistory(1, { tag: 'latest' }, undefined).baseFeePerBlobGas.at(-1) ?? 1n),
  eth_feeHistory: (params) => {
    expectArgs(params, 2, 3)
    const count = Number(parseQuantity(params[0], 'blockCount'))
    const percentiles = params[2] == null ? undefined : params[2]
    if (percentiles !== undefined) {
      if (!Array.isArray(percentiles) || percentiles.some((p) => typeof p !== 'number' || p < 0 || p > 100)) {
        throw invalidParams('invalid argument rewardPercentiles: expected numbers between 0 and 100')
      }
      for (let i = 1; i < percentiles.length; i++) {
        if (percentiles[i] < percentiles[i - 1])
          throw invalidParams(`invalid reward percentile: #${i - 1}:${percentiles[i - 1]} > #${i}:${percentiles[i]}`)
      }
    }
    if (count === 0)
      return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] }
    const h = node.feeHistory(
      Math.min(count, MAX_FEE_HISTORY),
      parseBlockRef(params[1], 'newestBlock'),
      percentiles as number[] | undefined,
    )
    return {
      oldestBlock: toQuantity(h.oldestBlock),
      baseFeePerGas: h.baseFeePerGas.map(toQuantity),
      gasUsedRatio: h.gasUsedRatio,
      baseFeePerBlobGas: h.baseFeePerBlobGas.map(toQuantity),
      blobGasUsedRatio: h.blobGasUsedRatio,
      ...(h.reward ? { reward: h.reward.map((r) => r.map(toQuantity)) } : {}),
    }
  },
})
