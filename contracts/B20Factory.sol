// SPDX-License-Identifier: MIT
// Base's B20Factory (0xB20f…, Beryl): creates ASSET and STABLECOIN tokens at addresses derived from
// the sender and a salt, [0xB2][9 zero bytes][variant][keccak256(abi.encode(sender, salt))[0:9]]
// (base/base b20_factory variant.rs). The checks run in Base's order (b20_factory logic/v1.rs). The
// node gives the token its 0xef marker when this factory first calls the new address; the token
// then takes the factory's calls as privileged (initCalls semantics of the Beryl spec).
pragma solidity ^0.8.28;

import {FEATURE_B20_ASSET, FEATURE_B20_STABLECOIN, requireActivated, revertUnknownSelector} from './B20Shared.sol';

/// The token's creation-time entry point, callable by the factory only.
interface IB20Init {
    function b20Initialize(string calldata name, string calldata symbol, uint8 decimals, string calldata currency) external;
}

contract B20Factory {
    enum B20Variant {
        ASSET,
        STABLECOIN
    }

    struct B20AssetCreateParams {
        uint8 version;
        string name;
        string symbol;
        address initialAdmin;
        uint8 decimals;
    }

    struct B20StablecoinCreateParams {
        uint8 version;
        string name;
        string symbol;
        address initialAdmin;
        string currency;
    }

    struct B20StablecoinEventParams {
        uint8 version;
        string currency;
    }

    error NonPayable();
    error TokenAlreadyExists(address token);
    error InvalidVariant();
    error UnsupportedVersion(uint8 version, uint8 variant);
    error MissingRequiredField(string field);
    error InvalidCurrency(string code);
    error InvalidDecimals(uint8 decimals);
    error InitCallFailed(uint256 index);

    event B20Created(
        address indexed token, uint8 indexed variant, string name, string symbol, uint8 decimals, bytes variantParams
    );

    bytes32 private constant DEFAULT_ADMIN_ROLE = 0x00;
    bytes32 private constant MARKER_HASH = keccak256(hex'ef');

    /// What createB20 decoded from `params`, common to both variants.
    struct Spec {
        string name;
        string symbol;
        address admin;
        uint8 decimals;
        string currency;
        bytes variantParams;
    }

    function createB20(uint8 variant, bytes32 salt, bytes calldata params, bytes[] calldata initCalls)
        external
        payable
        returns (address token)
    {
        if (msg.value != 0) revert NonPayable();
        if (variant > uint8(B20Variant.STABLECOIN)) revert InvalidVariant();
        requireActivated(variant == uint8(B20Variant.ASSET) ? FEATURE_B20_ASSET : FEATURE_B20_STABLECOIN);
        Spec memory spec = variant == uint8(B20Variant.ASSET) ? _asset(params) : _stablecoin(params);
        token = getB20Address(variant, msg.sender, salt);
        if (token.code.length != 0) revert TokenAlreadyExists(token);
        // The first call from the factory to a fresh token address is where the node sets the marker.
        (bool ok, bytes memory data) =
            token.call(abi.encodeCall(IB20Init.b20Initialize, (spec.name, spec.symbol, spec.decimals, spec.currency)));
        if (!ok) _bubble(data);
        emit B20Created(token, variant, spec.name, spec.symbol, spec.decimals, spec.variantParams);
        if (spec.admin != address(0)) {
            (ok, data) = token.call(abi.encodeWithSignature('grantRole(bytes32,address)', DEFAULT_ADMIN_ROLE, spec.admin));
            if (!ok) _bubble(data);
        }
        for (uint256 i = 0; i < initCalls.length; i++) {
            (ok, data) = token.call(initCalls[i]);
            if (!ok) {
                if (data.length == 0) revert InitCallFailed(i);
                _bubble(data);
            }
        }
    }

    function getB20Address(uint8 variant, address sender, bytes32 salt) public pure returns (address) {
        if (variant > uint8(B20Variant.STABLECOIN)) revert InvalidVariant();
        uint256 hash = uint256(keccak256(abi.encode(sender, salt)));
        return address(uint160((uint256(0xB2) << 152) | (uint256(variant) << 72) | (hash >> 184)));
    }

    /// The B20 prefix: 0xB2, nine zero bytes, a known variant.
    function isB20(address token) public pure returns (bool) {
        uint160 a = uint160(token);
        return a >> 80 == uint160(0xB2) << 72 && uint8(a >> 72) <= uint8(B20Variant.STABLECOIN);
    }

    function isB20Initialized(address token) external view returns (bool) {
        return isB20(token) && token.codehash == MARKER_HASH;
    }

    fallback() external payable {
        revertUnknownSelector();
    }

    /// Empty calldata: an empty revert, as an unknown (absent) selector.
    receive() external payable {
        revertUnknownSelector();
    }

    function _asset(bytes calldata params) private pure returns (Spec memory spec) {
        B20AssetCreateParams memory p = abi.decode(params, (B20AssetCreateParams));
        if (p.version != 1) revert UnsupportedVersion(p.version, uint8(B20Variant.ASSET));
        if (p.decimals < 6 || p.decimals > 18) revert InvalidDecimals(p.decimals);
        spec = Spec(p.name, p.symbol, p.initialAdmin, p.decimals, '', '');
    }

    function _stablecoin(bytes calldata params) private pure returns (Spec memory spec) {
        B20StablecoinCreateParams memory p = abi.decode(params, (B20StablecoinCreateParams));
        if (p.version != 1) revert UnsupportedVersion(p.version, uint8(B20Variant.STABLECOIN));
        bytes memory code = bytes(p.currency);
        if (code.length == 0) revert MissingRequiredField('currency');
        // Base's docs: an upper-case A–Z code (ISO 4217 style, three letters).
        bool valid = code.length == 3;
        for (uint256 i = 0; i < code.length && valid; i++) valid = code[i] >= 'A' && code[i] <= 'Z';
        if (!valid) revert InvalidCurrency(p.currency);
        spec = Spec(
            p.name, p.symbol, p.initialAdmin, 6, p.currency, abi.encode(B20StablecoinEventParams(1, p.currency))
        );
    }

    function _bubble(bytes memory data) private pure {
        assembly {
            revert(add(data, 0x20), mload(data))
        }
    }
}
