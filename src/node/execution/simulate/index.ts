// eth_simulateV1: plan.ts checks the request and plans its blocks, run.ts executes them,
// transfers.ts traces ETH movements, ../errors.ts holds the codes.
export { checkSimulateInput, SIMULATE_LIMITS, type SimulateBlockInput, type SimulateInput } from './plan.js'
export { type SimulateContext, type SimulatedBlock, type SimulatedCall, simulate } from './run.js'
