// SPDX-License-Identifier: MIT
// Base's PolicyRegistry (0x8453…02): allow- and block-lists that B20 tokens consult on transfers and
// mints, in one frozen logic version per upgrade as Base keeps them (base/base policy/logic v1, v2,
// v3): B20PolicyRegistryBeryl, B20PolicyRegistryCobalt and B20PolicyRegistry (Denim, the whole
// surface); the node runs the version of the block's upgrade. Storage is the ERC-7201 namespace
// "base.policy_registry": policies (exists bit 255 | admin), members, pending admins, the id counter,
// then Cobalt's composite children (offset 4; base-std changelog "Composite Policies"). Ids carry the
// type in their top byte; 0 always allows, (1 << 56) | 1 always blocks; writes need the
// policy_registry feature, reads do not. Cobalt adds UNION/INTERSECT of 2–4 simple policies; Denim
// reads bit 63 of an id as NOT.
pragma solidity ^0.8.28;

import {FEATURE_POLICY_REGISTRY, requireActivated, revertUnknownSelector} from './B20Shared.sol';

uint8 constant BERYL = 0;
uint8 constant COBALT = 1;
uint8 constant DENIM = 2;

abstract contract B20PolicyRegistryLogic {
    enum PolicyType {
        BLOCKLIST,
        ALLOWLIST,
        UNION,
        INTERSECT
    }

    error NonPayable();
    error Unauthorized();
    error PolicyNotFound();
    error IncompatiblePolicyType();
    error ZeroAddress();
    error BatchSizeTooLarge(uint256 maxBatchSize);
    error NoPendingAdmin();
    error ChildPoliciesOutsideOfRange();
    error InvalidChildPolicy(uint64 childPolicyId);

    event PolicyCreated(uint64 indexed policyId, address indexed creator, PolicyType policyType);
    event PolicyAdminStaged(uint64 indexed policyId, address indexed currentAdmin, address indexed pendingAdmin);
    event PolicyAdminUpdated(uint64 indexed policyId, address indexed previousAdmin, address indexed newAdmin);
    event AllowlistUpdated(uint64 indexed policyId, address indexed updater, bool allowed, address[] accounts);
    event BlocklistUpdated(uint64 indexed policyId, address indexed updater, bool blocked, address[] accounts);
    event CompositePolicyUpdated(uint64 indexed policyId, address indexed updater, uint64[] childPolicyIds);

    bytes32 private constant ROOT = 0x00503aeb06982fa1fe3151dc68f90b3946c55c449dfd447e49dcaece71ba4a00;
    uint256 private constant EXISTS = 1 << 255;
    uint64 private constant ALWAYS_ALLOW = 0;
    uint64 private constant ALWAYS_BLOCK = (1 << 56) | 1;
    uint64 private constant BUILTINS = 2;
    uint64 private constant COUNTER_MASK = (1 << 56) - 1;
    uint256 private constant MAX_BATCH = 64;
    uint64 private constant INVERTED = uint64(1) << 63;
    uint256 private constant MIN_CHILDREN = 2;
    uint256 private constant MAX_CHILDREN = 4;

    struct Layout {
        mapping(uint64 => uint256) policies;
        mapping(uint64 => mapping(address => bool)) members;
        mapping(uint64 => address) pendingAdmins;
        uint64 nextCounter;
        // Cobalt: a mapping entry holds the length, its elements pack four uint64 ids per slot.
        mapping(uint64 => uint64[]) children;
    }

    /// The upgrade whose logic this version is (BERYL, COBALT or DENIM).
    function _fork() internal pure virtual returns (uint8);

    function _layout() private pure returns (Layout storage l) {
        assembly {
            l.slot := ROOT
        }
    }

    /// Functions an upgrade added answer as unknown selectors before it (base/base precompile-storage).
    modifier since(uint8 fork) {
        if (_fork() < fork) revertUnknownSelector();
        _;
    }

    /// Writes: no value, the feature on (Beryl spec "Policy Registry").
    modifier write() {
        if (msg.value != 0) revert NonPayable();
        requireActivated(FEATURE_POLICY_REGISTRY);
        _;
    }

    function createPolicy(address admin, PolicyType policyType) external payable write returns (uint64) {
        if (admin == address(0)) revert ZeroAddress();
        _requireSimpleType(policyType);
        return _create(admin, policyType);
    }

    function createPolicyWithAccounts(address admin, PolicyType policyType, address[] calldata accounts)
        external
        payable
        write
        returns (uint64 id)
    {
        if (admin == address(0)) revert ZeroAddress();
        _requireSimpleType(policyType);
        if (accounts.length > MAX_BATCH) revert BatchSizeTooLarge(MAX_BATCH);
        id = _create(admin, policyType);
        Layout storage l = _layout();
        for (uint256 i = 0; i < accounts.length; i++) l.members[id][accounts[i]] = true;
        if (policyType == PolicyType.ALLOWLIST) emit AllowlistUpdated(id, msg.sender, true, accounts);
        else emit BlocklistUpdated(id, msg.sender, true, accounts);
    }

    /// Cobalt. Base's order: admin, type, child count, every child exists, then no child is a
    /// composite or a built-in; events PolicyCreated, PolicyAdminUpdated, CompositePolicyUpdated.
    function createCompositePolicy(address admin, PolicyType policyType, uint64[] calldata childPolicyIds)
        external
        payable
        since(COBALT)
        write
        returns (uint64 id)
    {
        if (admin == address(0)) revert ZeroAddress();
        if (policyType != PolicyType.UNION && policyType != PolicyType.INTERSECT) revert IncompatiblePolicyType();
        _requireChildren(childPolicyIds);
        id = _create(admin, policyType);
        _layout().children[id] = childPolicyIds;
        emit CompositePolicyUpdated(id, msg.sender, childPolicyIds);
    }

    /// Cobalt: replaces a composite's whole child set. Order: exists, composite, admin, then the
    /// children as createCompositePolicy checks them.
    function updateComposite(uint64 policyId, uint64[] calldata childPolicyIds) external payable since(COBALT) write {
        uint256 packed = _requireCustom(policyId);
        if (!_isComposite(policyId)) revert IncompatiblePolicyType();
        if (address(uint160(packed)) != msg.sender) revert Unauthorized();
        _requireChildren(childPolicyIds);
        _layout().children[policyId] = childPolicyIds;
        emit CompositePolicyUpdated(policyId, msg.sender, childPolicyIds);
    }

    /// Cobalt: the stored child set verbatim (empty for a simple policy).
    function compositePolicyChildIds(uint64 policyId) external view since(COBALT) returns (uint64[] memory) {
        return _layout().children[policyId];
    }

    function MIN_COMPOSITE_CHILD_POLICIES() external pure since(COBALT) returns (uint256) {
        return MIN_CHILDREN;
    }

    function MAX_COMPOSITE_CHILD_POLICIES() external pure since(COBALT) returns (uint256) {
        return MAX_CHILDREN;
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
    /// acts as an empty list of its type (an unwritten UNION authorizes nobody, an unwritten
    /// INTERSECT everybody). Denim: bit 63 inverts the decision of the policy under it, and an
    /// inverted id whose policy does not exist authorizes nobody (fails closed).
    function isAuthorized(uint64 policyId, address account) external view returns (bool) {
        if (_fork() >= DENIM && policyId & INVERTED != 0) {
            uint64 base = policyId ^ INVERTED;
            return _exists(base) && !_authorized(base, account);
        }
        return _authorized(policyId, account);
    }

    /// Denim: an inverted id exists when its policy does.
    function policyExists(uint64 policyId) external view returns (bool) {
        return _exists(_fork() >= DENIM ? policyId & ~INVERTED : policyId);
    }

    /// Denim: the admin of an inverted id is its policy's.
    function policyAdmin(uint64 policyId) external view returns (address) {
        return address(uint160(_layout().policies[_fork() >= DENIM ? policyId & ~INVERTED : policyId]));
    }

    /// Denim's helper: the id with its invert bit toggled; reads no state.
    function invertedPolicyId(uint64 policyId) external pure since(DENIM) returns (uint64) {
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

    /// Beryl's PolicyType has two members, so a composite type fails ABI decoding there (the engine's
    /// entry check gives Base's type-check revert first; this guards the rest); from Cobalt it is
    /// IncompatiblePolicyType.
    function _requireSimpleType(PolicyType policyType) private pure {
        if (uint8(policyType) <= uint8(PolicyType.ALLOWLIST)) return;
        if (_fork() < COBALT) revert();
        revert IncompatiblePolicyType();
    }

    /// 2–4 children; one pass for existence, a second for kind (no composite, no built-in). Denim
    /// allows an inverted simple policy as a child.
    function _requireChildren(uint64[] calldata childPolicyIds) private view {
        if (childPolicyIds.length < MIN_CHILDREN || childPolicyIds.length > MAX_CHILDREN) {
            revert ChildPoliciesOutsideOfRange();
        }
        bool denim = _fork() >= DENIM;
        for (uint256 i = 0; i < childPolicyIds.length; i++) {
            uint64 child = childPolicyIds[i];
            if (!_exists(denim ? child & ~INVERTED : child)) revert PolicyNotFound();
        }
        for (uint256 i = 0; i < childPolicyIds.length; i++) {
            uint64 base = denim ? childPolicyIds[i] & ~INVERTED : childPolicyIds[i];
            if (base == ALWAYS_ALLOW || base == ALWAYS_BLOCK || _isComposite(base)) {
                revert InvalidChildPolicy(childPolicyIds[i]);
            }
        }
    }

    function _isComposite(uint64 policyId) private pure returns (bool) {
        uint64 kind = policyId >> 56;
        return kind == uint64(uint8(PolicyType.UNION)) || kind == uint64(uint8(PolicyType.INTERSECT));
    }

    function _exists(uint64 policyId) private view returns (bool) {
        if (policyId == ALWAYS_ALLOW || policyId == ALWAYS_BLOCK) return true;
        return _layout().policies[policyId] & EXISTS != 0;
    }

    function _authorized(uint64 policyId, address account) private view returns (bool) {
        if (_fork() >= COBALT && _isComposite(policyId)) return _composite(policyId, account);
        return _simple(policyId, account);
    }

    /// Live, short-circuiting: UNION stops at the first child that authorizes, INTERSECT at the
    /// first that does not (base-std changelog "Composite Policies").
    function _composite(uint64 policyId, address account) private view returns (bool) {
        uint64[] storage kids = _layout().children[policyId];
        bool union = policyId >> 56 == uint64(uint8(PolicyType.UNION));
        for (uint256 i = 0; i < kids.length; i++) {
            uint64 child = kids[i];
            bool ok = child & INVERTED != 0 ? !_simple(child ^ INVERTED, account) : _simple(child, account);
            if (ok == union) return union;
        }
        return !union;
    }

    function _simple(uint64 policyId, address account) private view returns (bool) {
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

/// Beryl's logic (v1): allow- and block-lists only.
contract B20PolicyRegistryBeryl is B20PolicyRegistryLogic {
    function _fork() internal pure override returns (uint8) {
        return BERYL;
    }
}

/// Cobalt's logic (v2): with UNION/INTERSECT composites.
contract B20PolicyRegistryCobalt is B20PolicyRegistryLogic {
    function _fork() internal pure override returns (uint8) {
        return COBALT;
    }
}

/// Denim's logic (v3), the whole surface: with inverted ids.
contract B20PolicyRegistry is B20PolicyRegistryLogic {
    function _fork() internal pure override returns (uint8) {
        return DENIM;
    }
}
