// EIP-1186 proofs (eth_getProof) from the kept tries: the account's path in the state trie and each
// slot's path in its storage trie. Proofs of absence for missing accounts and slots, as geth gives.
import { createMerkleProof, type MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, bytesToBigInt, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'

export interface AccountProof {
  balance: bigint
  nonce: bigint
  codeHash: Uint8Array
  storageHash: Uint8Array
  /** RLP-encoded trie nodes from the root to the account's leaf (or where its path ends). */
  accountProof: Uint8Array[]
  storageProof: Array<{ key: Uint8Array; value: bigint; proof: Uint8Array[] }>
}

/** Where proofs read tries: the state manager's protected trie and its per-account storage tries. */
interface TrieAccess {
  _trie: MerklePatriciaTrie
  _getStorageTrie(address: Address, account: unknown): MerklePatriciaTrie
  flush(): Promise<void>
}

export async function proveAccount(sm: MerkleStateManager, address: Uint8Array, slots: Uint8Array[]): Promise<AccountProof> {
  const access = sm as unknown as TrieAccess
  const addr = new Address(address)
  await access.flush()
  const account = await sm.getAccount(addr)
  const accountProof = await createMerkleProof(access._trie, address)
  if (!account) {
    return {
      balance: 0n,
      nonce: 0n,
      codeHash: KECCAK256_NULL,
      storageHash: KECCAK256_RLP,
      accountProof,
      storageProof: slots.map((key) => ({ key, value: 0n, proof: [] })),
    }
  }
  const storageTrie = access._getStorageTrie(addr, account)
  const storageProof = []
  for (const key of slots) {
    const value = await sm.getStorage(addr, key)
    storageProof.push({ key, value: value.length ? bytesToBigInt(value) : 0n, proof: await createMerkleProof(storageTrie, key) })
  }
  return {
    balance: account.balance,
    nonce: account.nonce,
    codeHash: account.codeHash,
    storageHash: account.storageRoot,
    accountProof,
    storageProof,
  }
}
