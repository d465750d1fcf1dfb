// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title PredeployStub
/// @notice Stands at each OP-stack predeploy pcnode does not implement (L2CrossDomainMessenger,
///         L2StandardBridge, the fee vaults, ...), so a call to one fails loudly and names it
///         instead of succeeding on an empty account. Hardhat's OP chains do the same. pcnode's
///         genesis writes the predeploy's name into slot 0.
contract PredeployStub {
    string private name;

    fallback() external payable {
        revert(string.concat("Predeploy ", name, " is not supported."));
    }
}
