// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import { LibZip } from "solady/utils/LibZip.sol";

interface IL1BlockValues {
    function basefee() external view returns (uint256);
    function blobBaseFee() external view returns (uint256);
    function baseFeeScalar() external view returns (uint32);
    function blobBaseFeeScalar() external view returns (uint32);
    function operatorFeeScalar() external view returns (uint32);
    function operatorFeeConstant() external view returns (uint64);
    function l1FeeOverhead() external view returns (uint256);
    function l1FeeScalar() external view returns (uint256);
}

/// @title GasPriceOracle (OP-stack predeploy 0x420000000000000000000000000000000000000F)
/// @notice pcnode's implementation of the OP specs' GasPriceOracle through Jovian (predeploys.md,
///         fjord/predeploys.md, isthmus/ and jovian/predeploys.md): the L1 data fee of a transaction
///         from its FastLZ-compressed size (solady's LibZip, as the official contract), the operator
///         fee, and the L1 values of L1Block. The node charges exactly what `getL1Fee` answers for
///         the same bytes (it compresses the signed transaction; these functions add 68 bytes for
///         the signature an unsigned transaction lacks).
contract GasPriceOracle {
    uint256 public constant DECIMALS = 6;
    IL1BlockValues internal constant L1_BLOCK = IL1BlockValues(0x4200000000000000000000000000000000000015);
    address internal constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    int256 internal constant COST_INTERCEPT = -42_585_600;
    uint256 internal constant COST_FASTLZ_COEF = 836_500;
    uint256 internal constant MIN_TRANSACTION_SIZE = 100;

    // slot 0: the upgrade flags, set in pcnode's genesis
    bool public isEcotone;
    bool public isFjord;
    bool public isIsthmus;
    bool public isJovian;

    function version() external pure returns (string memory) {
        return "1.6.0-pcnode";
    }

    function setEcotone() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isEcotone flag");
        require(!isEcotone, "GasPriceOracle: Ecotone already active");
        isEcotone = true;
    }

    function setFjord() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isFjord flag");
        require(isEcotone, "GasPriceOracle: Fjord can only be activated after Ecotone");
        require(!isFjord, "GasPriceOracle: Fjord already active");
        isFjord = true;
    }

    function setIsthmus() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isIsthmus flag");
        require(isFjord, "GasPriceOracle: Isthmus can only be activated after Fjord");
        require(!isIsthmus, "GasPriceOracle: Isthmus already active");
        isIsthmus = true;
    }

    function setJovian() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isJovian flag");
        require(isIsthmus, "GasPriceOracle: Jovian can only be activated after Isthmus");
        require(!isJovian, "GasPriceOracle: Jovian already active");
        isJovian = true;
    }

    /// @notice L1 fee of an unsigned, fully RLP-encoded transaction.
    function getL1Fee(bytes memory _data) external view returns (uint256) {
        if (isFjord) return _fjordL1Cost(LibZip.flzCompress(_data).length + 68);
        uint256 gasUsed = _calldataGas(_data);
        if (isEcotone) {
            uint256 scaled = baseFeeScalar() * 16 * l1BaseFee() + blobBaseFeeScalar() * blobBaseFee();
            return gasUsed * scaled / (16 * 10 ** DECIMALS);
        }
        return (gasUsed + L1_BLOCK.l1FeeOverhead()) * l1BaseFee() * L1_BLOCK.l1FeeScalar() / 10 ** DECIMALS;
    }

    /// @notice An upper bound of the L1 fee for an unsigned transaction of this size (Fjord).
    function getL1FeeUpperBound(uint256 _unsignedTxSize) external view returns (uint256) {
        require(isFjord, "GasPriceOracle: getL1FeeUpperBound only supports Fjord");
        uint256 txSize = _unsignedTxSize + 68;
        return _fjordL1Cost(txSize + txSize / 255 + 16);
    }

    /// @notice L1 gas of an unsigned transaction (deprecated by Fjord, kept for callers).
    function getL1GasUsed(bytes memory _data) public view returns (uint256) {
        if (isFjord) return _fjordLinearRegression(LibZip.flzCompress(_data).length + 68) * 16 / 1e6;
        uint256 gasUsed = _calldataGas(_data);
        if (isEcotone) return gasUsed;
        return gasUsed + L1_BLOCK.l1FeeOverhead();
    }

    /// @notice The operator fee for `_gasUsed` gas: Jovian `gas * scalar * 100 + constant`,
    ///         Isthmus `gas * scalar / 1e6 + constant`, none before.
    function getOperatorFee(uint256 _gasUsed) external view returns (uint256) {
        if (!isIsthmus) return 0;
        uint256 scalar = L1_BLOCK.operatorFeeScalar();
        uint256 constant_ = L1_BLOCK.operatorFeeConstant();
        if (isJovian) return _gasUsed * scalar * 100 + constant_;
        return _gasUsed * scalar / 1e6 + constant_;
    }

    function gasPrice() external view returns (uint256) {
        return block.basefee;
    }

    function baseFee() external view returns (uint256) {
        return block.basefee;
    }

    function overhead() external view returns (uint256) {
        require(!isEcotone, "GasPriceOracle: overhead() is deprecated");
        return L1_BLOCK.l1FeeOverhead();
    }

    function scalar() external view returns (uint256) {
        require(!isEcotone, "GasPriceOracle: scalar() is deprecated");
        return L1_BLOCK.l1FeeScalar();
    }

    function l1BaseFee() public view returns (uint256) {
        return L1_BLOCK.basefee();
    }

    function blobBaseFee() public view returns (uint256) {
        return L1_BLOCK.blobBaseFee();
    }

    function baseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.baseFeeScalar();
    }

    function blobBaseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.blobBaseFeeScalar();
    }

    function decimals() external pure returns (uint256) {
        return DECIMALS;
    }

    function _fjordL1Cost(uint256 _fastLzSize) internal view returns (uint256) {
        uint256 feeScaled = baseFeeScalar() * 16 * l1BaseFee() + blobBaseFeeScalar() * blobBaseFee();
        return _fjordLinearRegression(_fastLzSize) * feeScaled / (10 ** (DECIMALS * 2));
    }

    /// @notice Fjord's estimate of the Brotli-compressed size from the FastLZ size, scaled by 1e6.
    function _fjordLinearRegression(uint256 _fastLzSize) internal pure returns (uint256) {
        int256 estimated = COST_INTERCEPT + int256(COST_FASTLZ_COEF * _fastLzSize);
        if (estimated < int256(MIN_TRANSACTION_SIZE) * 1e6) estimated = int256(MIN_TRANSACTION_SIZE) * 1e6;
        return uint256(estimated);
    }

    /// @notice Bedrock/Ecotone calldata gas, with 68 bytes of signature padding.
    function _calldataGas(bytes memory _data) internal pure returns (uint256 total) {
        for (uint256 i = 0; i < _data.length; i++) total += _data[i] == 0 ? 4 : 16;
        return total + 68 * 16;
    }
}
