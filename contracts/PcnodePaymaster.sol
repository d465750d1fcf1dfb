// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// PcnodePaymaster, PcnodePaymasterV06: the development paymasters behind pcnode's ERC-7677 methods (pm_getPaymasterStubData,
// pm_getPaymasterData): PcnodePaymaster for EntryPoint v0.7 and v0.8 (one PackedUserOperation,
// one IPaymaster), PcnodePaymasterV06 for v0.6.
// A verifying paymaster: it sponsors an op whose paymasterData carries the node's signature over
// the op's fields (all but the signatures), as eth-infinitism's VerifyingPaymaster does.
//
// paymasterAndData = paymaster (20) | verificationGasLimit (16) | postOpGasLimit (16) | paymasterData
// (v0.6: paymaster (20) | paymasterData),
// paymasterData    = validUntil (uint48, 6) | validAfter (uint48, 6) | signature (65).
//
// A signature that does not verify (the stub's) makes validation report SIG_VALIDATION_FAILED
// instead of reverting, so an op with stub data can be simulated and estimated. pcnode deploys it
// at genesis with its deposit already in the EntryPoint (the constructor deposits its balance).

/// @notice What pcnode's development paymasters share: the EntryPoint, the signer, the deposit made at
///         genesis, and the signature check (EIP-191 over the paymaster's hash of the op).
abstract contract PcnodePaymasterBase {
    address public immutable entryPoint;
    address public immutable verifyingSigner;

    uint256 internal constant SIG_VALIDATION_FAILED = 1;
    /// @dev Half the secp256k1 group order: a signature with a higher s is malleable and refused.
    uint256 internal constant SECP256K1_N_HALF = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    error NotFromEntryPoint();
    error InvalidPaymasterData();

    constructor(address entryPoint_, address verifyingSigner_) payable {
        entryPoint = entryPoint_;
        verifyingSigner = verifyingSigner_;
        // A balance given to the address before deployment (pcnode's genesis) becomes the EntryPoint deposit.
        if (address(this).balance > 0) _deposit(address(this).balance);
    }

    /// @notice Adds to the paymaster's deposit in the EntryPoint.
    function deposit() external payable {
        _deposit(msg.value);
    }

    receive() external payable {
        _deposit(msg.value);
    }

    function _deposit(uint256 amount) internal {
        (bool ok,) = entryPoint.call{value: amount}(abi.encodeWithSignature("depositTo(address)", address(this)));
        require(ok, "deposit failed");
    }

    /// @dev validationData for `data` = validUntil (6) | validAfter (6) | signature (65) over `hash`.
    function _validation(bytes32 hash, bytes calldata data) internal view returns (uint256) {
        uint48 validUntil = uint48(bytes6(data[0:6]));
        uint48 validAfter = uint48(bytes6(data[6:12]));
        bytes32 digest = keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", hash));
        uint256 failed = _recover(digest, data[12:]) == verifyingSigner ? 0 : SIG_VALIDATION_FAILED;
        return failed | (uint256(validUntil) << 160) | (uint256(validAfter) << 208);
    }

    /// @dev ecrecover of a 65-byte (r, s, v) signature; address(0) for any other length, a high s or a bad v.
    function _recover(bytes32 digest, bytes calldata signature) internal view returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > SECP256K1_N_HALF || (v != 27 && v != 28)) return address(0);
        (bool ok, bytes memory out) = address(1).staticcall(abi.encode(digest, v, r, s));
        if (!ok || out.length != 32) return address(0);
        return abi.decode(out, (address));
    }
}

/// @notice The v0.7 and v0.8 paymaster (PackedUserOperation).
contract PcnodePaymaster is PcnodePaymasterBase {
    struct PackedUserOperation {
        address sender;
        uint256 nonce;
        bytes initCode;
        bytes callData;
        bytes32 accountGasLimits;
        uint256 preVerificationGas;
        bytes32 gasFees;
        bytes paymasterAndData;
        bytes signature;
    }

    uint256 internal constant PAYMASTER_DATA_OFFSET = 52;

    constructor(address entryPoint_, address verifyingSigner_) payable PcnodePaymasterBase(entryPoint_, verifyingSigner_) {}

    /// @notice The hash the signer signs (EIP-191) for `userOp` valid from `validAfter` until `validUntil`.
    function getHash(PackedUserOperation calldata userOp, uint48 validUntil, uint48 validAfter) public view returns (bytes32) {
        if (userOp.paymasterAndData.length < PAYMASTER_DATA_OFFSET) revert InvalidPaymasterData();
        return keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                keccak256(userOp.initCode),
                keccak256(userOp.callData),
                userOp.accountGasLimits,
                bytes32(userOp.paymasterAndData[20:PAYMASTER_DATA_OFFSET]),
                userOp.preVerificationGas,
                userOp.gasFees,
                block.chainid,
                address(this),
                validUntil,
                validAfter
            )
        );
    }

    /// @notice IPaymaster: sponsors `userOp` when its paymasterData carries the signer's signature.
    function validatePaymasterUserOp(PackedUserOperation calldata userOp, bytes32, uint256)
        external
        view
        returns (bytes memory context, uint256 validationData)
    {
        if (msg.sender != entryPoint) revert NotFromEntryPoint();
        bytes calldata data = userOp.paymasterAndData;
        if (data.length < PAYMASTER_DATA_OFFSET + 12) revert InvalidPaymasterData();
        uint48 validUntil = uint48(bytes6(data[PAYMASTER_DATA_OFFSET:PAYMASTER_DATA_OFFSET + 6]));
        uint48 validAfter = uint48(bytes6(data[PAYMASTER_DATA_OFFSET + 6:PAYMASTER_DATA_OFFSET + 12]));
        return ("", _validation(getHash(userOp, validUntil, validAfter), data[PAYMASTER_DATA_OFFSET:]));
    }

    /// @notice IPaymaster: never called (validation returns no context); present for the interface.
    function postOp(uint8, bytes calldata, uint256, uint256) external view {
        if (msg.sender != entryPoint) revert NotFromEntryPoint();
    }
}

/// @notice The v0.6 paymaster (v0.6's unpacked UserOperation; paymasterAndData = paymaster (20) | paymasterData).
contract PcnodePaymasterV06 is PcnodePaymasterBase {
    struct UserOperation {
        address sender;
        uint256 nonce;
        bytes initCode;
        bytes callData;
        uint256 callGasLimit;
        uint256 verificationGasLimit;
        uint256 preVerificationGas;
        uint256 maxFeePerGas;
        uint256 maxPriorityFeePerGas;
        bytes paymasterAndData;
        bytes signature;
    }

    uint256 internal constant PAYMASTER_DATA_OFFSET = 20;

    constructor(address entryPoint_, address verifyingSigner_) payable PcnodePaymasterBase(entryPoint_, verifyingSigner_) {}

    /// @notice The hash the signer signs (EIP-191) for `userOp` valid from `validAfter` until `validUntil`.
    function getHash(UserOperation calldata userOp, uint48 validUntil, uint48 validAfter) public view returns (bytes32) {
        return keccak256(
            abi.encode(
                userOp.sender,
                userOp.nonce,
                keccak256(userOp.initCode),
                keccak256(userOp.callData),
                userOp.callGasLimit,
                userOp.verificationGasLimit,
                userOp.preVerificationGas,
                userOp.maxFeePerGas,
                userOp.maxPriorityFeePerGas,
                block.chainid,
                address(this),
                validUntil,
                validAfter
            )
        );
    }

    /// @notice IPaymaster (v0.6): sponsors `userOp` when its paymasterAndData carries the signer's signature.
    function validatePaymasterUserOp(UserOperation calldata userOp, bytes32, uint256)
        external
        view
        returns (bytes memory context, uint256 validationData)
    {
        if (msg.sender != entryPoint) revert NotFromEntryPoint();
        bytes calldata data = userOp.paymasterAndData;
        if (data.length < PAYMASTER_DATA_OFFSET + 12) revert InvalidPaymasterData();
        uint48 validUntil = uint48(bytes6(data[PAYMASTER_DATA_OFFSET:PAYMASTER_DATA_OFFSET + 6]));
        uint48 validAfter = uint48(bytes6(data[PAYMASTER_DATA_OFFSET + 6:PAYMASTER_DATA_OFFSET + 12]));
        return ("", _validation(getHash(userOp, validUntil, validAfter), data[PAYMASTER_DATA_OFFSET:]));
    }

    /// @notice IPaymaster (v0.6): never called (validation returns no context); present for the interface.
    function postOp(uint8, bytes calldata, uint256) external view {
        if (msg.sender != entryPoint) revert NotFromEntryPoint();
    }
}
