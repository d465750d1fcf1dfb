// The addresses CREATE and CREATE2 deploy to (yellow paper; EIP-1014), for tracers that name a
// creation before it runs.
import { keccak256 } from 'viem'

function rlpAddressNonce(address: Uint8Array, nonce: bigint): Uint8Array {
  const n =
    nonce === 0n
      ? new Uint8Array()
      : Buffer.from(nonce.toString(16).padStart(Math.ceil(nonce.toString(16).length / 2) * 2, '0'), 'hex')
  const nonceItem = n.length === 1 && n[0] < 0x80 ? n : Uint8Array.from([0x80 + n.length, ...n])
  const body = Uint8Array.from([0x94, ...address, ...nonceItem])
  return Uint8Array.from([0xc0 + body.length, ...body])
}

export function contractAddress(address: Uint8Array, nonce: bigint): Uint8Array {
  return Buffer.from(keccak256(rlpAddressNonce(address, nonce)).slice(26), 'hex')
}

export function create2Address(address: Uint8Array, salt: bigint, init: Uint8Array): Uint8Array {
  const saltBytes = Buffer.from(salt.toString(16).padStart(64, '0'), 'hex')
  const initHash = Buffer.from(keccak256(init).slice(2), 'hex')
  return Buffer.from(keccak256(Uint8Array.from([0xff, ...address, ...saltBytes, ...initHash])).slice(26), 'hex')
}
