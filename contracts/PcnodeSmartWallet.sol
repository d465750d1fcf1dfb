// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title PcnodeSmartWallet
/// @notice A small multi-owner smart wallet written for the pcnode devnet. Its signature format is
///         wire-compatible with Coinbase Smart Wallet / Base Account, so tools that speak that format
///         (viem's replay-safe typed data, SignatureWrapper and WebAuthn encodings, ERC-6492 wrapping)
///         work against it. The code is an independent implementation of that described behaviour.
///
/// Owners are raw `bytes`:
///   - 32 bytes: `abi.encode(address)`: an EOA (ECDSA via ecrecover) or a contract owner (nested ERC-1271);
///   - 64 bytes: `abi.encode(uint256 x, uint256 y)`: a P-256 public key (a passkey, WebAuthn assertions).
///
/// `isValidSignature(hash, signature)` checks `signature` against `replaySafeHash(hash)`, the EIP-712 hash of
/// `CoinbaseSmartWalletMessage(bytes32 hash)` under the domain {"Coinbase Smart Wallet", "1", chainid, this}.
/// `signature` is `abi.encode(SignatureWrapper(ownerIndex, signatureData))`. A malformed or wrong signature
/// yields 0xffffffff; the function never reverts because of the signature's content.
///
/// The wallet is deployed as ERC-1167 minimal-proxy clones of one implementation (see PcnodeWalletFactory).
contract PcnodeSmartWallet {
    // ---------------------------------------------------------------- types, constants, storage

    /// @dev Documentation of the wire format; decoding is done by hand (bounds-checked, never reverting).
    struct SignatureWrapper {
        uint256 ownerIndex;
        bytes signatureData;
    }

    /// @dev Documentation of the passkey signatureData format (`abi.encode(WebAuthnAuth)`).
    struct WebAuthnAuth {
        bytes authenticatorData;
        string clientDataJSON;
        uint256 challengeIndex;
        uint256 typeIndex;
        uint256 r;
        uint256 s;
    }

    bytes4 internal constant ERC1271_MAGIC = 0x1626ba7e;
    bytes4 internal constant ERC1271_INVALID = 0xffffffff;

    /// @dev keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    /// @dev keccak256("CoinbaseSmartWalletMessage(bytes32 hash)")
    bytes32 internal constant MESSAGE_TYPEHASH = keccak256("CoinbaseSmartWalletMessage(bytes32 hash)");
    bytes32 internal constant NAME_HASH = keccak256("Coinbase Smart Wallet");
    bytes32 internal constant VERSION_HASH = keccak256("1");

    /// @dev EIP-7951 / RIP-7212 P256VERIFY precompile.
    address internal constant P256_VERIFIER = address(0x100);
    /// @dev Order of the P-256 group, and half of it (high-s bound).
    uint256 internal constant P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551;
    uint256 internal constant P256_N_HALF = P256_N / 2;
    /// @dev Half the secp256k1 group order (high-s bound for ECDSA owners).
    uint256 internal constant SECP256K1_N_HALF = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// @dev `"type":"webauthn.get"`, 21 bytes.
    bytes21 internal constant WEBAUTHN_GET_TYPE = bytes21('"type":"webauthn.get"');

    /// @notice The factory allowed to initialize clones (the deployer of this implementation).
    address public immutable factory;

    bool private _initialized;
    bytes[] private _owners;
    mapping(bytes32 => bool) private _isOwner;

    // ---------------------------------------------------------------- events and errors

    event OwnerAdded(uint256 indexed index, bytes owner);
    event Executed(address indexed target, uint256 value, bytes data);

    error AlreadyInitialized();
    error NotFactory();
    error Unauthorized();
    error NoOwners();
    error InvalidOwnerBytesLength(bytes owner);
    error InvalidEthereumAddressOwner(bytes owner);
    error DuplicateOwner(bytes owner);

    // ---------------------------------------------------------------- setup

    constructor() {
        factory = msg.sender;
        // The implementation itself is never usable as a wallet.
        _initialized = true;
    }

    /// @notice Sets the owners of a freshly cloned wallet. Callable once, by the factory.
    function initialize(bytes[] calldata owners) external payable {
        if (msg.sender != factory) revert NotFactory();
        if (_initialized) revert AlreadyInitialized();
        if (owners.length == 0) revert NoOwners();
        _initialized = true;
        for (uint256 i = 0; i < owners.length; i++) {
            _addOwner(owners[i]);
        }
    }

    function _addOwner(bytes calldata owner) private {
        if (owner.length == 32) {
            if (uint256(bytes32(owner)) > type(uint160).max) revert InvalidEthereumAddressOwner(owner);
        } else if (owner.length != 64) {
            revert InvalidOwnerBytesLength(owner);
        }
        bytes32 key = keccak256(owner);
        if (_isOwner[key]) revert DuplicateOwner(owner);
        _isOwner[key] = true;
        _owners.push(owner);
        emit OwnerAdded(_owners.length - 1, owner);
    }

    receive() external payable {}

    // ---------------------------------------------------------------- owners

    /// @notice Owner bytes at `index`, or empty bytes when out of range.
    function ownerAtIndex(uint256 index) external view returns (bytes memory) {
        if (index >= _owners.length) return "";
        return _owners[index];
    }

    function ownerCount() external view returns (uint256) {
        return _owners.length;
    }

    function isOwnerBytes(bytes calldata owner) external view returns (bool) {
        return _isOwner[keccak256(owner)];
    }

    function isOwnerAddress(address account) public view returns (bool) {
        return _isOwner[keccak256(abi.encode(account))];
    }

    function isOwnerPublicKey(uint256 x, uint256 y) external view returns (bool) {
        return _isOwner[keccak256(abi.encode(x, y))];
    }

    // ---------------------------------------------------------------- execution

    /// @notice Calls `target` with `value` and `data`. Only an address owner or the wallet itself may call.
    ///         A revert of the inner call is bubbled up unchanged.
    function execute(address target, uint256 value, bytes calldata data) external payable returns (bytes memory) {
        if (msg.sender != address(this) && !isOwnerAddress(msg.sender)) revert Unauthorized();
        (bool ok, bytes memory result) = target.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
        emit Executed(target, value, data);
        return result;
    }

    // ---------------------------------------------------------------- EIP-712 / EIP-5267

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice The hash an owner actually signs for `hash`: binds it to this wallet and chain.
    function replaySafeHash(bytes32 hash) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(MESSAGE_TYPEHASH, hash));
        return keccak256(abi.encodePacked(hex"1901", domainSeparator(), structHash));
    }

    /// @notice EIP-5267 domain description.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "Coinbase Smart Wallet", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    // ---------------------------------------------------------------- ERC-1271

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _isValidSignature(replaySafeHash(hash), signature) ? ERC1271_MAGIC : ERC1271_INVALID;
    }

    function _isValidSignature(bytes32 message, bytes calldata signature) internal view returns (bool) {
        // signature = abi.encode((uint256 ownerIndex, bytes signatureData)): head word = offset of the tuple.
        (bool ok, uint256 tuple) = _readOffset(signature, 0, 0, 64);
        if (!ok) return false;
        uint256 ownerIndex = uint256(bytes32(signature[tuple:tuple + 32]));
        bytes calldata signatureData;
        (ok, signatureData) = _readBytes(signature, tuple, tuple + 32);
        if (!ok || ownerIndex >= _owners.length) return false;

        bytes memory owner = _owners[ownerIndex];
        if (owner.length == 32) {
            return _checkAddressOwner(address(uint160(uint256(bytes32(owner)))), message, signatureData);
        }
        if (owner.length == 64) {
            (uint256 x, uint256 y) = abi.decode(owner, (uint256, uint256));
            return _checkWebAuthn(message, signatureData, x, y);
        }
        return false;
    }

    /// @dev EOA: 65-byte r‖s‖v ECDSA (low s). Otherwise, for an owner with code, a nested ERC-1271 check.
    function _checkAddressOwner(address owner, bytes32 message, bytes calldata sig) internal view returns (bool) {
        if (sig.length == 65) {
            bytes32 r = bytes32(sig[0:32]);
            bytes32 s = bytes32(sig[32:64]);
            uint8 v = uint8(sig[64]);
            if (v < 27) v += 27;
            if (uint256(s) <= SECP256K1_N_HALF && (v == 27 || v == 28)) {
                address signer = ecrecover(message, v, r, s);
                if (signer != address(0) && signer == owner) return true;
            }
        }
        if (owner.code.length == 0) return false;
        (bool success, bytes memory ret) =
            owner.staticcall(abi.encodeWithSelector(PcnodeSmartWallet.isValidSignature.selector, message, sig));
        return success && ret.length >= 32 && bytes4(bytes32(ret)) == ERC1271_MAGIC;
    }

    // ---------------------------------------------------------------- WebAuthn (passkey owners)

    /// @dev Checks a WebAuthn assertion (`abi.encode(WebAuthnAuth)`) made with public key (x, y) over
    ///      `challenge` (the replay-safe hash). User presence is required, user verification is not.
    function _checkWebAuthn(bytes32 challenge, bytes calldata data, uint256 x, uint256 y)
        internal
        view
        returns (bool)
    {
        // Head of the WebAuthnAuth tuple: 6 words.
        (bool ok, uint256 tuple) = _readOffset(data, 0, 0, 192);
        if (!ok) return false;
        bytes calldata authenticatorData;
        bytes calldata clientDataJSON;
        (ok, authenticatorData) = _readBytes(data, tuple, tuple);
        if (!ok) return false;
        (ok, clientDataJSON) = _readBytes(data, tuple, tuple + 32);
        if (!ok) return false;
        uint256 challengeIndex = uint256(bytes32(data[tuple + 64:tuple + 96]));
        uint256 typeIndex = uint256(bytes32(data[tuple + 96:tuple + 128]));
        uint256 r = uint256(bytes32(data[tuple + 128:tuple + 160]));
        uint256 s = uint256(bytes32(data[tuple + 160:tuple + 192]));

        // Malleability: only the low-s form of a signature is accepted.
        if (s > P256_N_HALF) return false;

        // "type":"webauthn.get" at typeIndex.
        uint256 len = clientDataJSON.length;
        if (typeIndex > len || len - typeIndex < 21) return false;
        if (bytes21(clientDataJSON[typeIndex:typeIndex + 21]) != WEBAUTHN_GET_TYPE) return false;

        // "challenge":"<base64url(challenge)>" at challengeIndex.
        bytes memory expected = abi.encodePacked('"challenge":"', _base64Url32(challenge), '"');
        if (challengeIndex > len || len - challengeIndex < expected.length) return false;
        if (keccak256(clientDataJSON[challengeIndex:challengeIndex + expected.length]) != keccak256(expected)) {
            return false;
        }

        // authenticatorData = rpIdHash(32) ‖ flags(1) ‖ signCount(4) ‖ ...; UP = bit 0 of flags.
        if (authenticatorData.length < 37 || (uint8(authenticatorData[32]) & 0x01) == 0) return false;

        bytes32 messageHash = sha256(abi.encodePacked(authenticatorData, sha256(clientDataJSON)));
        return _p256Verify(messageHash, r, s, x, y);
    }

    /// @dev P256VERIFY precompile: 160-byte input, 32-byte 1 on success, empty output otherwise.
    function _p256Verify(bytes32 messageHash, uint256 r, uint256 s, uint256 x, uint256 y)
        internal
        view
        returns (bool)
    {
        (bool success, bytes memory ret) = P256_VERIFIER.staticcall(abi.encode(messageHash, r, s, x, y));
        return success && ret.length == 32 && uint256(bytes32(ret)) == 1;
    }

    /// @dev base64url (RFC 4648 §5) of 32 bytes, without padding: 43 characters.
    function _base64Url32(bytes32 value) internal pure returns (bytes memory out) {
        bytes memory alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        out = new bytes(43);
        uint256 v = uint256(value);
        // 32 bytes = 10 groups of 3 bytes (40 characters) + 2 trailing bytes (3 characters).
        uint256 o = 0;
        for (uint256 i = 0; i < 30; i += 3) {
            uint256 group = (v >> (8 * (29 - i))) & 0xffffff; // bytes i, i+1, i+2 (big-endian)
            out[o++] = alphabet[(group >> 18) & 63];
            out[o++] = alphabet[(group >> 12) & 63];
            out[o++] = alphabet[(group >> 6) & 63];
            out[o++] = alphabet[group & 63];
        }
        uint256 tail = (v & 0xffff) << 2; // last 2 bytes = 16 bits, padded to 18 bits
        out[o++] = alphabet[(tail >> 12) & 63];
        out[o++] = alphabet[(tail >> 6) & 63];
        out[o] = alphabet[tail & 63];
    }

    // ---------------------------------------------------------------- safe ABI reading

    /// @dev Reads the offset word at `buf[headPos:]` (relative to `base`) and checks that `minSize` bytes
    ///      fit after the target. Returns the absolute position.
    function _readOffset(bytes calldata buf, uint256 base, uint256 headPos, uint256 minSize)
        private
        pure
        returns (bool ok, uint256 pos)
    {
        uint256 len = buf.length;
        if (headPos > len || len - headPos < 32) return (false, 0);
        uint256 rel = uint256(bytes32(buf[headPos:headPos + 32]));
        if (rel > len || base > len - rel) return (false, 0);
        pos = base + rel;
        if (len - pos < minSize) return (false, 0);
        return (true, pos);
    }

    /// @dev Reads an ABI `bytes` whose offset word (relative to `base`) sits at `headPos`.
    function _readBytes(bytes calldata buf, uint256 base, uint256 headPos)
        private
        pure
        returns (bool ok, bytes calldata out)
    {
        out = buf[0:0];
        uint256 pos;
        (ok, pos) = _readOffset(buf, base, headPos, 32);
        if (!ok) return (false, out);
        uint256 n = uint256(bytes32(buf[pos:pos + 32]));
        uint256 start = pos + 32;
        if (n > buf.length - start) return (false, out);
        return (true, buf[start:start + n]);
    }
}
