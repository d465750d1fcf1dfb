// SPDX-License-Identifier: MIT
// The Asset variant's own surface (Beryl's IB20Asset, base/base b20_asset/abi/v1.rs, logic/v1.rs):
// a display multiplier at WAD precision and the scaled views of balances, announcements that run
// a batch of the token's own calls atomically between Announcement and EndAnnouncement, batchMint,
// and string-keyed extra metadata. A Stablecoin answers these selectors as unknown ones.
pragma solidity ^0.8.28;

import {revertUnknownSelector} from './B20Shared.sol';
import {B20TokenBase} from './B20TokenBase.sol';

abstract contract B20TokenAsset is B20TokenBase {
    error AnnouncementIdAlreadyUsed(string id);
    error InvalidMetadataKey();
    error InvalidMultiplier();
    error LengthMismatch(uint256 leftLen, uint256 rightLen);
    error EmptyBatch();
    error AnnouncementInProgress();
    error InternalCallMalformed(bytes call);
    error InternalCallFailed(bytes call);

    event MultiplierUpdated(uint256 multiplier);
    event ExtraMetadataUpdated(string key, string value);
    event Announcement(address indexed caller, string id, string description, string uri);
    event EndAnnouncement(string id);

    bytes32 public constant OPERATOR_ROLE = keccak256('OPERATOR_ROLE');
    uint256 public constant WAD_PRECISION = 1e18;

    modifier onlyAsset() {
        if (_isStablecoin()) revertUnknownSelector();
        _;
    }

    function multiplier() public view onlyAsset returns (uint256) {
        uint256 m = _asset().multiplier;
        return m == 0 ? WAD_PRECISION : m;
    }

    function toScaledBalance(uint256 rawBalance) public view onlyAsset returns (uint256) {
        return rawBalance * multiplier() / WAD_PRECISION;
    }

    function toRawBalance(uint256 scaledBalance) external view onlyAsset returns (uint256 rawBalance) {
        return scaledBalance * WAD_PRECISION / multiplier();
    }

    function scaledBalanceOf(address account) external view onlyAsset returns (uint256) {
        return toScaledBalance(_core().balances[account]);
    }

    /// OPERATOR_ROLE; a zero multiplier is refused.
    function updateMultiplier(uint256 newMultiplier) external payable nonPayable onlyAsset onlyRole(OPERATOR_ROLE) {
        if (newMultiplier == 0) revert InvalidMultiplier();
        _asset().multiplier = newMultiplier;
        emit MultiplierUpdated(newMultiplier);
    }

    function extraMetadata(string calldata key) external view onlyAsset returns (string memory) {
        return _asset().extraMetadata[key];
    }

    /// METADATA_ROLE; an empty value removes the entry.
    function updateExtraMetadata(string calldata key, string calldata value)
        external
        payable
        nonPayable
        onlyAsset
        onlyRole(METADATA_ROLE)
    {
        if (bytes(key).length == 0) revert InvalidMetadataKey();
        if (bytes(value).length == 0) delete _asset().extraMetadata[key];
        else _asset().extraMetadata[key] = value;
        emit ExtraMetadataUpdated(key, value);
    }

    /// Pause, MINT_ROLE, then the arrays; each mint as mint's own checks but the role.
    function batchMint(address[] calldata recipients, uint256[] calldata amounts) external payable nonPayable onlyAsset {
        _requireNotPaused(PausableFeature.MINT);
        _checkRole(MINT_ROLE);
        if (recipients.length != amounts.length) revert LengthMismatch(recipients.length, amounts.length);
        if (recipients.length == 0) revert EmptyBatch();
        for (uint256 i = 0; i < recipients.length; i++) _mintUnchecked(recipients[i], amounts[i]);
    }

    function isAnnouncementIdUsed(string calldata id) external view onlyAsset returns (bool) {
        return _asset().usedAnnouncementIds[id];
    }

    /// OPERATOR_ROLE; each id once. The inner calls run as this token's own calls by the same caller
    /// (a DELEGATECALL to itself keeps msg.sender; Base dispatches them in place); one that reverts
    /// fails the whole announcement with InternalCallFailed(call).
    function announce(bytes[] calldata internalCalls, string calldata id, string calldata description, string calldata uri)
        external
        payable
        nonPayable
        onlyAsset
        onlyRole(OPERATOR_ROLE)
    {
        AssetExt storage a = _asset();
        if (a.usedAnnouncementIds[id]) revert AnnouncementIdAlreadyUsed(id);
        a.usedAnnouncementIds[id] = true;
        emit Announcement(msg.sender, id, description, uri);
        for (uint256 i = 0; i < internalCalls.length; i++) {
            bytes calldata call = internalCalls[i];
            if (call.length < 4) revert InternalCallMalformed(call);
            if (bytes4(call[:4]) == this.announce.selector) revert AnnouncementInProgress();
            (bool ok,) = address(this).delegatecall(call);
            if (!ok) revert InternalCallFailed(call);
        }
        emit EndAnnouncement(id);
    }
}
