// SPDX-License-Identifier: MIT
// Base's ActivationRegistry (0x8453…01, Beryl): the admin switches the B20 features on and off. The
// features mapping sits at the ERC-7201 root of "base.activation_registry" (base/base
// activation/storage.rs). The admin is node configuration at Beryl: Base mainnet's on chain 8453,
// otherwise the local-dev default base-anvil uses (anvil's account 5).
pragma solidity ^0.8.28;

import {ACTIVATION_REGISTRY, revertUnknownSelector} from './B20Shared.sol';

contract B20ActivationRegistry {
    error Unauthorized(address caller);
    error AlreadyActivated(bytes32 feature);
    error AlreadyDeactivated(bytes32 feature);
    error FeatureNotActivated(bytes32 feature);
    error DelegateCallNotAllowed();
    error NonPayable();

    event FeatureActivated(bytes32 indexed feature, address indexed caller);
    event FeatureDeactivated(bytes32 indexed feature, address indexed caller);

    bytes32 private constant ROOT = 0x43ee1bbe25e988521cccd8b2c8fbd38c8287ebff8e074e825a70dfd3885cce00;
    address private constant DEV_ADMIN = 0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc;
    address private constant MAINNET_ADMIN = 0xcE3a3bEE7E72E2A24079f3c0Cb3b97740ED425A9;

    struct Layout {
        mapping(bytes32 => bool) features;
    }

    function _layout() private pure returns (Layout storage l) {
        assembly {
            l.slot := ROOT
        }
    }

    modifier direct() {
        if (address(this) != ACTIVATION_REGISTRY) revert DelegateCallNotAllowed();
        if (msg.value != 0) revert NonPayable();
        _;
    }

    function admin() public view returns (address) {
        return block.chainid == 8453 ? MAINNET_ADMIN : DEV_ADMIN;
    }

    function isActivated(bytes32 feature) external view returns (bool) {
        return _layout().features[feature];
    }

    function checkActivated(bytes32 feature) external view {
        if (!_layout().features[feature]) revert FeatureNotActivated(feature);
    }

    function activate(bytes32 feature) external payable direct {
        _set(feature, true);
        emit FeatureActivated(feature, msg.sender);
    }

    function deactivate(bytes32 feature) external payable direct {
        _set(feature, false);
        emit FeatureDeactivated(feature, msg.sender);
    }

    function _set(bytes32 feature, bool on) private {
        if (msg.sender != admin()) revert Unauthorized(msg.sender);
        Layout storage l = _layout();
        if (l.features[feature] == on) {
            if (on) revert AlreadyActivated(feature);
            revert AlreadyDeactivated(feature);
        }
        l.features[feature] = on;
    }

    fallback() external payable {
        revertUnknownSelector();
    }

    /// Empty calldata: an empty revert, as an unknown (absent) selector.
    receive() external payable {
        revertUnknownSelector();
    }
}
