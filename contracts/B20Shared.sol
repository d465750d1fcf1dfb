// SPDX-License-Identifier: MIT
// Addresses, feature ids and the unknown-selector rule shared by pcnode's implementations of Base's
// Beryl precompiles (B20Factory, B20 tokens, PolicyRegistry, ActivationRegistry). The node runs these
// contracts' runtime code for accounts whose code is the one-byte marker 0xef, so state lives at the
// precompile's own address in Base's ERC-7201 layout (base/docs specifications/b20/architecture).
pragma solidity ^0.8.28;

address constant B20_FACTORY = 0xB20f000000000000000000000000000000000000;
address constant ACTIVATION_REGISTRY = 0x8453000000000000000000000000000000000001;
address constant POLICY_REGISTRY = 0x8453000000000000000000000000000000000002;

// keccak256("base.b20_asset"), keccak256("base.b20_stablecoin"), keccak256("base.policy_registry").
bytes32 constant FEATURE_B20_ASSET = 0xcdcc772fe4cbdb1029f822861176d09e646db96723d4c1e82ddfdeb8163ef54c;
bytes32 constant FEATURE_B20_STABLECOIN = 0xecfa0def2c10020caaf65e6155aa69c84b24892aaef76eeac52e0e2b3a0b8601;
bytes32 constant FEATURE_POLICY_REGISTRY = 0xb582ebae03f16fee49a6763f78df482fb11ae73f103ed0d330bbe556aa90a43f;

interface IActivationCheck {
    error FeatureNotActivated(bytes32 feature);
    function isActivated(bytes32 feature) external view returns (bool);
}

interface IPolicyCheck {
    function isAuthorized(uint64 policyId, address account) external view returns (bool);
    function policyExists(uint64 policyId) external view returns (bool);
}

/// The Beryl precompiles answer an unknown selector by reverting with its four bytes
/// (base/base precompile-storage error.rs UnknownFunctionSelector).
function revertUnknownSelector() pure {
    assembly {
        let size := calldatasize()
        if gt(size, 4) { size := 4 }
        calldatacopy(0, 0, size)
        revert(0, size)
    }
}

/// Reverts FeatureNotActivated(feature) unless the ActivationRegistry has `feature` on.
function requireActivated(bytes32 feature) view {
    if (!IActivationCheck(ACTIVATION_REGISTRY).isActivated(feature)) revert IActivationCheck.FeatureNotActivated(feature);
}
