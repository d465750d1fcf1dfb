// Permit2's ABI (Uniswap's Permit2: ISignatureTransfer, IAllowanceTransfer, EIP712), preinstalled on
// the OP profiles at 0x000000000022D473030F116dDEE9F6B43aC78BA3. viem ships none, and the npm package
// that does (@uniswap/permit2-sdk) brings ethers v5 along, so the interface is written here in viem's
// human-readable form; test/decode-signatures.test.ts checks every selector is in the preinstalled code.
import { parseAbi } from 'viem'

export const permit2Abi = parseAbi([
  'struct TokenPermissions { address token; uint256 amount; }',
  'struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }',
  'struct PermitBatchTransferFrom { TokenPermissions[] permitted; uint256 nonce; uint256 deadline; }',
  'struct SignatureTransferDetails { address to; uint256 requestedAmount; }',
  'struct PermitDetails { address token; uint160 amount; uint48 expiration; uint48 nonce; }',
  'struct PermitSingle { PermitDetails details; address spender; uint256 sigDeadline; }',
  'struct PermitBatch { PermitDetails[] details; address spender; uint256 sigDeadline; }',
  'struct AllowanceTransferDetails { address from; address to; uint160 amount; address token; }',
  'struct TokenSpenderPair { address token; address spender; }',
  // ISignatureTransfer
  'function permitTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes signature)',
  'function permitTransferFrom(PermitBatchTransferFrom permit, SignatureTransferDetails[] transferDetails, address owner, bytes signature)',
  'function permitWitnessTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)',
  'function permitWitnessTransferFrom(PermitBatchTransferFrom permit, SignatureTransferDetails[] transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature)',
  'function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)',
  'function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)',
  'event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)',
  // IAllowanceTransfer
  'function allowance(address user, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)',
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  'function permit(address owner, PermitSingle permitSingle, bytes signature)',
  'function permit(address owner, PermitBatch permitBatch, bytes signature)',
  'function transferFrom(address from, address to, uint160 amount, address token)',
  'function transferFrom(AllowanceTransferDetails[] transferDetails)',
  'function lockdown(TokenSpenderPair[] approvals)',
  'function invalidateNonces(address token, address spender, uint48 newNonce)',
  'event Approval(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration)',
  'event Permit(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration, uint48 nonce)',
  'event Lockdown(address indexed owner, address token, address spender)',
  'event NonceInvalidation(address indexed owner, address indexed token, address indexed spender, uint48 newNonce, uint48 oldNonce)',
  // EIP712
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  // Its errors (PermitErrors, SignatureVerification, IAllowanceTransfer, ISignatureTransfer)
  'error SignatureExpired(uint256 signatureDeadline)',
  'error InvalidNonce()',
  'error InvalidSignatureLength()',
  'error InvalidSignature()',
  'error InvalidSigner()',
  'error InvalidContractSignature()',
  'error AllowanceExpired(uint256 deadline)',
  'error InsufficientAllowance(uint256 amount)',
  'error ExcessiveInvalidation()',
  'error InvalidAmount(uint256 maxAmount)',
  'error LengthMismatch()',
])
