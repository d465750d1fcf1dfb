// SPDX-License-Identifier: MIT
// The Asset variant's own surface (Beryl's IB20Asset, base/base b20_asset/abi/v1.rs, logic/v1.rs):
// a display multiplier at WAD precision and the scaled views of balances, announcements that run
// a batch of the token's own calls atomically between Announcement and EndAnnouncement, batchMint,
// and string-keyed extra metadata; from Cobalt ERC-8056's scheduled multiplier (abi/v2.rs,
// logic/v2.rs: one pending update that takes effect lazily at its time). A Stablecoin answers these
// selectors as unknown ones, and a Cobalt selector is unknown before Cobalt.
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
    error EffectiveAtInPast(uint256 effectiveAt);
    error EffectiveAtTooFar(uint256 effectiveAt);
    error ScheduleOverlap(uint256 pendingEffectiveAt);
    error NoScheduledMultiplier();

    event MultiplierUpdated(uint256 multiplier);
    event ExtraMetadataUpdated(string key, string value);
    event Announcement(address indexed caller, string id, string description, string uri);
    event EndAnnouncement(string id);
    event UIMultiplierUpdated(uint256 oldMultiplier, uint256 newMultiplier, uint256 effectiveAtTimestamp);
    event MultiplierUpdateCancelled(uint256 cancelledMultiplier, uint256 cancelledEffectiveAt);

    bytes32 public constant OPERATOR_ROLE = keccak256('OPERATOR_ROLE');
    uint256 public constant WAD_PRECISION = 1e18;

    modifier onlyAsset() {
        if (_isStablecoin()) revertUnknownSelector();
        _;
    }

    /// The stored multiplier (zero reads as WAD).
    function _storedMultiplier() internal view returns (uint256) {
        uint256 m = _asset().multiplier;
        return m == 0 ? WAD_PRECISION : m;
    }

    /// From Cobalt a matured scheduled multiplier is the current one.
    function multiplier() public view onlyAsset returns (uint256) {
        AssetExt storage a = _asset();
        if (_fork() >= COBALT && a.pendingEffectiveAt != 0 && block.timestamp >= a.pendingEffectiveAt) {
            return a.pendingMultiplier;
        }
        return _storedMultiplier();
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

    /// OPERATOR_ROLE; a zero multiplier is refused. From Cobalt: at most 2^128 − 1, any scheduled
    /// update cleared (MultiplierUpdateCancelled when it was still ahead), UIMultiplierUpdated.
    function updateMultiplier(uint256 newMultiplier) external payable nonPayable onlyAsset onlyRole(OPERATOR_ROLE) {
        if (_fork() < COBALT) {
            if (newMultiplier == 0) revert InvalidMultiplier();
            _asset().multiplier = newMultiplier;
            emit MultiplierUpdated(newMultiplier);
            return;
        }
        if (newMultiplier == 0 || newMultiplier > type(uint128).max) revert InvalidMultiplier();
        AssetExt storage a = _asset();
        // Base reads the two packed fields one at a time (two SLOADs of the word), then the
        // effective multiplier. The optimizer merges two reads of one slot it can prove equal, so
        // the second adds the call's value, zero here (nonPayable), which it cannot.
        uint256 pending;
        uint256 pendingAt;
        assembly {
            let word := add(a.slot, 4)
            pending := and(sload(word), 0xffffffffffffffffffffffffffffffff)
            pendingAt := and(shr(128, sload(add(word, callvalue()))), 0xffffffffffffffff)
        }
        uint256 old = multiplier();
        a.multiplier = newMultiplier;
        if (pendingAt != 0) (a.pendingMultiplier, a.pendingEffectiveAt) = (0, 0);
        if (pendingAt > block.timestamp) emit MultiplierUpdateCancelled(pending, pendingAt);
        emit UIMultiplierUpdated(old, newMultiplier, block.timestamp);
    }

    function uiMultiplier() external view onlyAsset since(COBALT) returns (uint256) {
        return multiplier();
    }

    /// The scheduled multiplier while it is ahead, else the current one.
    function newUIMultiplier() external view onlyAsset since(COBALT) returns (uint256) {
        AssetExt storage a = _asset();
        if (a.pendingEffectiveAt > block.timestamp) return a.pendingMultiplier;
        return multiplier();
    }

    function effectiveAt() external view onlyAsset since(COBALT) returns (uint256) {
        return _asset().pendingEffectiveAt;
    }

    function balanceOfUI(address account) external view onlyAsset since(COBALT) returns (uint256) {
        return toScaledBalance(_core().balances[account]);
    }

    function totalSupplyUI() external view onlyAsset since(COBALT) returns (uint256) {
        return _core().totalSupply * multiplier() / WAD_PRECISION;
    }

    /// OPERATOR_ROLE; one update ahead at a time; a matured one is folded into the current first.
    function setUIMultiplier(uint256 newMultiplier, uint256 effectiveAt_)
        external
        payable
        nonPayable
        onlyAsset
        since(COBALT)
        onlyRole(OPERATOR_ROLE)
    {
        if (newMultiplier == 0 || newMultiplier > type(uint128).max) revert InvalidMultiplier();
        if (effectiveAt_ <= block.timestamp) revert EffectiveAtInPast(effectiveAt_);
        if (effectiveAt_ > type(uint64).max) revert EffectiveAtTooFar(effectiveAt_);
        AssetExt storage a = _asset();
        uint256 pendingAt = a.pendingEffectiveAt;
        if (pendingAt > block.timestamp) revert ScheduleOverlap(pendingAt);
        if (pendingAt != 0) a.multiplier = a.pendingMultiplier;
        uint256 old = _storedMultiplier();
        (a.pendingMultiplier, a.pendingEffectiveAt) = (uint128(newMultiplier), uint64(effectiveAt_));
        emit UIMultiplierUpdated(old, newMultiplier, effectiveAt_);
    }

    /// OPERATOR_ROLE; only an update still ahead (one maturing now has taken effect).
    function cancelScheduledMultiplier() external payable nonPayable onlyAsset since(COBALT) onlyRole(OPERATOR_ROLE) {
        AssetExt storage a = _asset();
        uint256 pending = a.pendingMultiplier;
        uint256 pendingAt = a.pendingEffectiveAt;
        if (pendingAt <= block.timestamp) revert NoScheduledMultiplier();
        (a.pendingMultiplier, a.pendingEffectiveAt) = (0, 0);
        emit MultiplierUpdateCancelled(pending, pendingAt);
    }

    /// The three ERC-8056 interface ids (IScaledUIAmount, …NewUIMultiplier, …Balances).
    function supportsInterface(bytes4 interfaceId) external view onlyAsset since(COBALT) returns (bool) {
        return interfaceId == 0xa60bf13d || interfaceId == 0x4bd27648 || interfaceId == 0xd890fd71;
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

    /// The used flag written whole, as Base writes a bool (no read first).
    function _markAnnouncementIdUsed(AssetExt storage a, string calldata id) private {
        mapping(string => bool) storage used = a.usedAnnouncementIds;
        uint256 mappingSlot;
        assembly {
            mappingSlot := used.slot
        }
        bytes32 key = keccak256(abi.encodePacked(id, mappingSlot));
        assembly {
            sstore(key, 1)
        }
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
        _markAnnouncementIdUsed(a, id);
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
