// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PcnodeSmartWallet} from "./PcnodeSmartWallet.sol";

/// @title PcnodeWalletFactory
/// @notice Deploys PcnodeSmartWallet accounts at counterfactual addresses. The constructor deploys one wallet
///         implementation; each account is an ERC-1167 minimal proxy (45-byte runtime) of it, created with
///         CREATE2 and salt `keccak256(abi.encode(owners, nonce))`, then initialized with `owners`.
///
///         `createAccount` is idempotent: for an account that already exists it returns the address without
///         reverting (ERC-6492 verifiers call the factory even when the wallet may already be deployed).
///         The call signature matches Coinbase Smart Wallet's factory, so the same ERC-6492 factory data works.
contract PcnodeWalletFactory {
    /// @notice The wallet implementation every account delegates to.
    address public immutable implementation;

    event AccountCreated(address indexed account, bytes[] owners, uint256 nonce);

    error OwnerRequired();
    error DeploymentFailed();

    constructor() {
        implementation = address(new PcnodeSmartWallet());
    }

    /// @notice Deploys (if needed) and returns the account for `owners` and `nonce`.
    ///         Any ETH sent is forwarded to the account.
    function createAccount(bytes[] calldata owners, uint256 nonce) external payable returns (address account) {
        if (owners.length == 0) revert OwnerRequired();
        bytes32 salt = _salt(owners, nonce);
        account = _predict(salt);
        if (account.code.length != 0) {
            if (msg.value != 0) {
                (bool ok,) = account.call{value: msg.value}("");
                if (!ok) revert DeploymentFailed();
            }
            return account;
        }
        bytes memory initCode = _initCode();
        address deployed;
        assembly ("memory-safe") {
            deployed := create2(0, add(initCode, 0x20), mload(initCode), salt)
        }
        if (deployed == address(0) || deployed != account) revert DeploymentFailed();
        PcnodeSmartWallet(payable(deployed)).initialize{value: msg.value}(owners);
        emit AccountCreated(deployed, owners, nonce);
    }

    /// @notice The counterfactual address of the account for `owners` and `nonce`.
    function getAddress(bytes[] calldata owners, uint256 nonce) external view returns (address) {
        return _predict(_salt(owners, nonce));
    }

    /// @notice keccak256 of the accounts' creation code (for off-chain CREATE2 prediction).
    function initCodeHash() public view returns (bytes32) {
        return keccak256(_initCode());
    }

    function _salt(bytes[] calldata owners, uint256 nonce) internal pure returns (bytes32) {
        return keccak256(abi.encode(owners, nonce));
    }

    function _predict(bytes32 salt) internal view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash())))));
    }

    /// @dev ERC-1167 creation code: a 10-byte loader that returns the 45-byte runtime
    ///      `363d3d373d3d3d363d73 <implementation> 5af43d82803e903d91602b57fd5bf3`.
    function _initCode() internal view returns (bytes memory) {
        return abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, hex"5af43d82803e903d91602b57fd5bf3"
        );
    }
}
