// SPDX-License-Identifier: MIT
// Base's ActivationRegistry (0x8453…01): the admin switches the B20 features on and off. The
// features mapping sits at the ERC-7201 root of "base.activation_registry", the admin Cobalt stores
// in the field after it (base/base activation/storage.rs). At Beryl the admin is node
// configuration: Base mainnet's on chain 8453, otherwise the local-dev default base-anvil uses
// (anvil's account 5). From Cobalt (ActivationAdminConfig with state enabled) a stored admin,
// once setAdmin wrote one, replaces it. One frozen version per upgrade, as Base keeps them; the
// node runs the block's.
pragma solidity ^0.8.28;

import {ACTIVATION_REGISTRY, revertUnknownSelector} from './B20Shared.sol';

abstract contract B20ActivationRegistryLogic {
    error Unauthorized(address caller);
    error AlreadyActivated(bytes32 feature);
    error FeatureNotActivated(bytes32 feature);
    error DelegateCallNotAllowed();
    error NonPayable();
    error ZeroAdminAddress();

    event FeatureActivated(bytes32 indexed feature, address indexed caller);
    event FeatureDeactivated(bytes32 indexed feature, address indexed caller);
    event AdminChanged(address indexed previousAdmin, address indexed newAdmin, address indexed caller);

    bytes32 private constant ROOT = 0x43ee1bbe25e988521cccd8b2c8fbd38c8287ebff8e074e825a70dfd3885cce00;
    address private constant DEV_ADMIN = 0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc;
    address private constant MAINNET_ADMIN = 0xcE3a3bEE7E72E2A24079f3c0Cb3b97740ED425A9;

    struct Layout {
        mapping(bytes32 => bool) features;
        address admin;
    }

    /// Whether the admin lives in storage (Cobalt and later).
    function _adminInStorage() internal pure virtual returns (bool);

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

    /// The stored admin when there is one (Cobalt), else the configured one.
    function admin() public view returns (address) {
        if (_adminInStorage()) {
            address stored = _layout().admin;
            if (stored != address(0)) return stored;
        }
        return block.chainid == 8453 ? MAINNET_ADMIN : DEV_ADMIN;
    }

    function isActivated(bytes32 feature) external view returns (bool) {
        return _layout().features[feature];
    }

    function checkActivated(bytes32 feature) external view {
        if (!_layout().features[feature]) revert FeatureNotActivated(feature);
    }

    function activate(bytes32 feature) external payable direct {
        _requireAdmin();
        Layout storage l = _layout();
        if (l.features[feature]) revert AlreadyActivated(feature);
        l.features[feature] = true;
        emit FeatureActivated(feature, msg.sender);
    }

    /// Deactivating an inactive feature is FeatureNotActivated (base/base set_activated).
    function deactivate(bytes32 feature) external payable direct {
        _requireAdmin();
        Layout storage l = _layout();
        if (!l.features[feature]) revert FeatureNotActivated(feature);
        delete l.features[feature];
        emit FeatureDeactivated(feature, msg.sender);
    }

    /// Cobalt: the admin hands over in one step. Before Cobalt the selector is unknown (base/base
    /// activation/dispatch.rs). Order: zero address, then the caller (set_admin).
    function setAdmin(address newAdmin) external payable {
        if (!_adminInStorage()) revertUnknownSelector();
        if (address(this) != ACTIVATION_REGISTRY) revert DelegateCallNotAllowed();
        if (msg.value != 0) revert NonPayable();
        if (newAdmin == address(0)) revert ZeroAdminAddress();
        _requireAdmin();
        _layout().admin = newAdmin;
        emit AdminChanged(msg.sender, newAdmin, msg.sender);
    }

    fallback() external payable {
        revertUnknownSelector();
    }

    /// Empty calldata: an empty revert, as an unknown (absent) selector.
    receive() external payable {
        revertUnknownSelector();
    }

    function _requireAdmin() private view {
        if (msg.sender != admin()) revert Unauthorized(msg.sender);
    }
}

/// Beryl: the admin is configuration only.
contract B20ActivationRegistryBeryl is B20ActivationRegistryLogic {
    function _adminInStorage() internal pure override returns (bool) {
        return false;
    }
}

/// Cobalt and later: setAdmin and the stored admin (the whole surface).
contract B20ActivationRegistry is B20ActivationRegistryLogic {
    function _adminInStorage() internal pure override returns (bool) {
        return true;
    }
}
