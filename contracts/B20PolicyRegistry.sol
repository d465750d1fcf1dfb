// SPDX-License-Identifier: MIT
// Base's PolicyRegistry (0x8453…02) with its Beryl surface: allow- and block-lists that B20 tokens
// consult on transfers and mints. Storage is the ERC-7201 namespace "base.policy_registry": policies
// (exists bit 255 | admin), members, pending admins, then the id counter (base/base
// policy/storage.rs). Ids carry the type in their top byte; 0 always allows, (1 << 56) | 1 always
// blocks; writes need the policy_registry feature, reads do not. Denim's inverted ids (bit 63) are
// read here too; Cobalt's composite policies are not implemented.
pragma solidity ^0.8.28;

import {FEATURE_POLICY_REGISTRY, POLICY_REGISTRY, requireActivated, revertUnknownSelector} from './B20Shared.sol';

contract B20PolicyRegistry {
    enum PolicyType {
        BLOCKLIST,
        ALLOWLIST
    }

    error NonPayable();
    error Unauthorized();
    error PolicyNotFound();
    error IncompatiblePolicyType();
    error ZeroAddress();
    error BatchSizeTooLarge(uint256 maxBatchSize);
    error NoPendingAdmin();

    event PolicyCreated(uint64 indexed policyId, address indexed creator, PolicyType policyType);
    event PolicyAdminStaged(uint64 indexed policyId, address indexed currentAdmin, address indexed pendingAdmin);
    event PolicyAdminUpdated(uint64 indexed policyId, address indexed previousAdmin, address indexed newAdmin);
    event AllowlistUpdated(uint64 indexed policyId, address indexed updater, bool allowed, address[] accounts);
    event BlocklistUpdated(uint64 indexed policyId, address indexed updater, bool blocked, address[] accounts);

    bytes32 private constant ROOT = 0x00503aeb06982fa1fe3151dc68f90b3946c55c449dfd447e49dcaece71ba4a00;
    uint256 private constant EXISTS = 1 << 255;
    uint64 private constant ALWAYS_ALLOW = 0;
    uint64 private constant ALWAYS_BLOCK = (1 << 56) | 1;
    uint64 private constant BUILTINS = 2;
    uint64 private constant COUNTER_MASK = (1 << 56) - 1;
    uint256 private constant MAX_BATCH = 64;
    uint64 private constant INVERTED = uint64(1) << 63;

    struct Layout {
        mapping(uint64 => uint256) policies;
        mapping(uint64 => mapping(address => bool)) members;
        mapping(uint64 => address) pendingAdmins;
        uint64 nextCounter;
    }

    function _layout() private pure returns (Layout storage l) {
        assembly {
            l.slot := ROOT
        }
    }

    /// Writes: no value, the feature on (Beryl spec "Policy Registry").
    modifier write() {
        if (msg.value != 0) revert NonPayable();
        requireActivated(FEATURE_POLICY_REGISTRY);
        _;
    }

    function createPolicy(address admin, PolicyType policyType) external payable write returns (uint64) {
        if (admin == address(0)) revert ZeroAddress();
        return _create(admin, policyType);
    }

    function createPolicyWithAccounts(address admin, PolicyType policyType, address[] calldata accounts)
        external
        payable
        write
        returns (uint64 id)
    {
        if (admin == address(0)) revert ZeroAddress();
        if (accounts.length > MAX_BATCH) revert BatchSizeTooLarge(MAX_BATCH);
        id = _create(admin, policyType);
        Layout storage l = _layout();
        for (uint256 i = 0; i < accounts.length; i++) l.members[id][accounts[i]] = true;
        if (policyType == PolicyType.ALLOWLIST) emit AllowlistUpdated(id, msg.sender, true, accounts);
        else emit BlocklistUpdated(id, msg.sender, true, accounts);
    }

    function stageUpdateAdmin(uint64 policyId, address newAdmin) external payable write {
        _requireAdmin(policyId);
        _layout().pendingAdmins[policyId] = newAdmin;
        emit PolicyAdminStaged(policyId, msg.sender, newAdmin);
    }

    function finalizeUpdateAdmin(uint64 policyId) external payable write {
        Layout storage l = _layout();
        uint256 packed = _requireCustom(policyId);
        address pending = l.pendingAdmins[policyId];
        if (pending == address(0)) revert NoPendingAdmin();
        if (pending != msg.sender) revert Unauthorized();
        l.policies[policyId] = EXISTS | uint160(msg.sender);
        delete l.pendingAdmins[policyId];
        emit PolicyAdminUpdated(policyId, address(uint160(packed)), msg.sender);
    }

    function renounceAdmin(uint64 policyId) external payable write {
        _requireAdmin(policyId);
        Layout storage l = _layout();
        l.policies[policyId] = EXISTS;
        delete l.pendingAdmins[policyId];
        emit PolicyAdminUpdated(policyId, msg.sender, address(0));
    }

    function updateAllowlist(uint64 policyId, bool allowed, address[] calldata accounts) external payable write {
        _updateMembers(policyId, PolicyType.ALLOWLIST, allowed, accounts);
        emit AllowlistUpdated(policyId, msg.sender, allowed, accounts);
    }

    function updateBlocklist(uint64 policyId, bool blocked, address[] calldata accounts) external payable write {
        _updateMembers(policyId, PolicyType.BLOCKLIST, blocked, accounts);
        emit BlocklistUpdated(policyId, msg.sender, blocked, accounts);
    }

    /// Never reverts: built-ins fast-path, malformed types are unauthorized, an unwritten policy
    /// acts as an empty list of its type. Denim: bit 63 inverts the decision of the policy under
    /// it, and an inverted id whose policy does not exist authorizes nobody (fails closed).
    function isAuthorized(uint64 policyId, address account) external view returns (bool) {
        if (policyId & INVERTED != 0) {
            uint64 base = policyId ^ INVERTED;
            return _exists(base) && !_authorized(base, account);
        }
        return _authorized(policyId, account);
    }

    /// An inverted id exists when its policy does (Denim).
    function policyExists(uint64 policyId) external view returns (bool) {
        return _exists(policyId & ~INVERTED);
    }

    /// The admin of an inverted id is its policy's (Denim).
    function policyAdmin(uint64 policyId) external view returns (address) {
        return address(uint160(_layout().policies[policyId & ~INVERTED]));
    }

    /// Denim's helper: the id with its invert bit toggled; reads no state.
    function invertedPolicyId(uint64 policyId) external pure returns (uint64) {
        return policyId ^ INVERTED;
    }

    function pendingPolicyAdmin(uint64 policyId) external view returns (address) {
        return _layout().pendingAdmins[policyId];
    }

    fallback() external payable {
        revertUnknownSelector();
    }

    /// Empty calldata: an empty revert, as an unknown (absent) selector.
    receive() external payable {
        revertUnknownSelector();
    }

    function _create(address admin, PolicyType policyType) private returns (uint64 id) {
        Layout storage l = _layout();
        uint64 counter = l.nextCounter;
        // First touch writes the two built-ins (admin zero) and moves the counter past them.
        if (counter < BUILTINS) {
            l.policies[ALWAYS_ALLOW] = EXISTS;
            l.policies[ALWAYS_BLOCK] = EXISTS;
            counter = BUILTINS;
        }
        if (counter >= COUNTER_MASK) revert();
        l.nextCounter = counter + 1;
        id = (uint64(uint8(policyType)) << 56) | counter;
        l.policies[id] = EXISTS | uint160(admin);
        emit PolicyCreated(id, msg.sender, policyType);
        emit PolicyAdminUpdated(id, address(0), admin);
    }

    function _exists(uint64 policyId) private view returns (bool) {
        if (policyId == ALWAYS_ALLOW || policyId == ALWAYS_BLOCK) return true;
        return _layout().policies[policyId] & EXISTS != 0;
    }

    function _authorized(uint64 policyId, address account) private view returns (bool) {
        uint64 kind = policyId >> 56;
        if (kind > uint64(uint8(PolicyType.ALLOWLIST))) return false;
        if (policyId == ALWAYS_ALLOW) return true;
        if (policyId == ALWAYS_BLOCK) return false;
        bool member = _layout().members[policyId][account];
        return kind == uint64(uint8(PolicyType.ALLOWLIST)) ? member : !member;
    }

    function _requireCustom(uint64 policyId) private view returns (uint256 packed) {
        packed = _layout().policies[policyId];
        if (packed & EXISTS == 0) revert PolicyNotFound();
    }

    function _requireAdmin(uint64 policyId) private view {
        if (address(uint160(_requireCustom(policyId))) != msg.sender) revert Unauthorized();
    }

    /// Base's order: existence, type, admin, batch size.
    function _updateMembers(uint64 policyId, PolicyType kind, bool add, address[] calldata accounts) private {
        uint256 packed = _requireCustom(policyId);
        if (policyId >> 56 != uint64(uint8(kind))) revert IncompatiblePolicyType();
        if (address(uint160(packed)) != msg.sender) revert Unauthorized();
        if (accounts.length > MAX_BATCH) revert BatchSizeTooLarge(MAX_BATCH);
        Layout storage l = _layout();
        for (uint256 i = 0; i < accounts.length; i++) l.members[policyId][accounts[i]] = add;
    }
}
