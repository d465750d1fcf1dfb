// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title BaseTime (Base Denim predeploy, proxy 0x4200000000000000000000000000000000000030)
/// @notice pcnode's implementation of Base's BaseTime: the millisecond part of the block's time,
///         which the second deposit of every Denim block (200 ms blocks) sets, so contracts can
///         read the block time in milliseconds. The ABI, storage layout (the part in the low two
///         bytes of slot 0), custom errors and behaviour are Base's; Base's own implementation
///         code is not published on npm, so this runtime code (and its code hash) is pcnode's.
contract BaseTime {
    /// @notice The depositor account (OP specs, deposits.md): the only sender allowed to set the part.
    address internal constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    /// @notice Milliseconds past block.timestamp: 0, 200, 400, 600 or 800. Slot 0.
    uint16 public timestampMillisPart;

    error BaseTime_NotDepositor();
    error BaseTime_InvalidTimestampMillisPart();

    function version() external pure returns (string memory) {
        return "1.0.0";
    }

    /// @notice The block's time in milliseconds.
    function timestampMs() external view returns (uint64) {
        return uint64(block.timestamp * 1000 + timestampMillisPart);
    }

    /// @notice Set by the BaseTime deposit (selector 0x86bdf394) at the head of each block.
    function setTimestampMillisPart(uint16 _timestampMillisPart) external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert BaseTime_NotDepositor();
        if (_timestampMillisPart > 800 || _timestampMillisPart % 200 != 0) revert BaseTime_InvalidTimestampMillisPart();
        timestampMillisPart = _timestampMillisPart;
    }
}
