// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title L1Block (OP-stack predeploy 0x4200000000000000000000000000000000000015)
/// @notice pcnode's implementation of the OP specs' L1Block (specs/protocol/predeploys.md, ecotone/,
///         isthmus/ and jovian/l1-attributes.md): the L1 values the first (L1-info) deposit of every
///         block writes, which GasPriceOracle and the node's fee charging read. Storage layout,
///         selectors and calldata packing are the spec's, so tools that read slots directly agree.
contract L1Block {
    /// @notice The depositor account: the only sender allowed to set L1 values.
    address public constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    // slot 0
    uint64 public number;
    uint64 public timestamp;
    // slot 1
    uint256 public basefee;
    // slot 2
    bytes32 public hash;
    // slot 3: packed as the Ecotone calldata's first 16 bytes
    uint64 public sequenceNumber;
    uint32 public blobBaseFeeScalar;
    uint32 public baseFeeScalar;
    // slot 4
    bytes32 public batcherHash;
    // slots 5, 6 (Bedrock, unused since Ecotone)
    uint256 public l1FeeOverhead;
    uint256 public l1FeeScalar;
    // slot 7
    uint256 public blobBaseFee;
    // slot 8: operator fee constant (low 8 bytes), scalar (4 above), DA footprint gas scalar (2 above)
    uint64 public operatorFeeConstant;
    uint32 public operatorFeeScalar;
    uint16 public daFootprintGasScalar;

    error NotDepositor();

    function version() external pure returns (string memory) {
        return "1.8.0-pcnode";
    }

    function gasPayingToken() external pure returns (address addr_, uint8 decimals_) {
        return (0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE, 18);
    }

    function gasPayingTokenName() external pure returns (string memory) {
        return "Ether";
    }

    function gasPayingTokenSymbol() external pure returns (string memory) {
        return "ETH";
    }

    function isCustomGasToken() external pure returns (bool) {
        return false;
    }

    /// @notice Ecotone: packed calldata (selector 0x440a5e20): baseFeeScalar u32, blobBaseFeeScalar
    ///         u32, sequenceNumber u64, timestamp u64, number u64, basefee, blobBaseFee, hash,
    ///         batcherHash.
    function setL1BlockValuesEcotone() public {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        assembly {
            // bytes 4..20: the two scalars and the sequence number, as slot 3 holds them
            sstore(sequenceNumber.slot, shr(128, calldataload(4)))
            // bytes 20..36: timestamp and number, as slot 0 holds them
            sstore(number.slot, shr(128, calldataload(20)))
            sstore(basefee.slot, calldataload(36))
            sstore(blobBaseFee.slot, calldataload(68))
            sstore(hash.slot, calldataload(100))
            sstore(batcherHash.slot, calldataload(132))
        }
    }

    /// @notice Isthmus (0x098999be): Ecotone's fields, then operatorFeeScalar u32 and operatorFeeConstant u64.
    function setL1BlockValuesIsthmus() external {
        setL1BlockValuesEcotone();
        assembly {
            sstore(operatorFeeConstant.slot, shr(160, calldataload(164)))
        }
    }

    /// @notice Jovian (0x3db6be2b): Isthmus' fields, then daFootprintGasScalar u16 (178 bytes in all).
    function setL1BlockValuesJovian() external {
        setL1BlockValuesEcotone();
        assembly {
            let operatorFee := shr(160, calldataload(164))
            let daScalar := shr(240, calldataload(176))
            sstore(operatorFeeConstant.slot, or(shl(96, daScalar), operatorFee))
        }
    }
}
