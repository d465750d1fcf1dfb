// SPDX-License-Identifier: MIT
// The state and rules under pcnode's B20 token (B20Token.sol): Base's IB20 errors, events and ids
// (base/base common/abi/v1.rs), the ERC-7201 storage of "base.b20", "base.b20.asset" and
// "base.b20.stablecoin" (common/core_storage.rs, b20_asset/storage.rs, b20_stablecoin/storage.rs),
// and the checks every entry point shares: roles (the factory's calls pass them), pause bits,
// policy lanes, and the transfer, mint and burn paths in Base's order.
pragma solidity ^0.8.28;

import {B20_FACTORY, IPolicyCheck, POLICY_REGISTRY, revertUnknownSelector} from './B20Shared.sol';

abstract contract B20TokenBase {
    enum PausableFeature {
        TRANSFER,
        MINT,
        BURN,
        SEIZE // Cobalt
    }

    error NonPayable();
    error AccessControlUnauthorizedAccount(address account, bytes32 neededRole);
    error Unauthorized();
    error ContractPaused(PausableFeature feature);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error InsufficientBalance(address sender, uint256 balance, uint256 needed);
    error InvalidSender(address sender);
    error InvalidReceiver(address receiver);
    error InvalidApprover(address approver);
    error InvalidSpender(address spender);
    error EmptyFeatureSet();
    error InvalidSupplyCap(uint256 currentSupply, uint256 proposedCap);
    error SupplyCapExceeded(uint256 cap, uint256 attempted);
    error PolicyForbids(bytes32 policyScope, uint64 policyId);
    error PolicyNotFound(uint64 policyId);
    error UnsupportedPolicyType(bytes32 policyScope);
    error AccountNotBlocked(address account);
    error ExpiredSignature(uint256 deadline);
    error InvalidSigner(address signer, address owner);
    error LastAdminCannotRenounce();
    error NotSoleAdmin();
    error AccessControlBadConfirmation();

    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 amount);
    event Memo(address indexed caller, bytes32 indexed memo);
    event BurnedBlocked(address indexed caller, address indexed from, uint256 amount);
    event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender);
    event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender);
    event RoleAdminChanged(bytes32 indexed role, bytes32 indexed previousAdminRole, bytes32 indexed newAdminRole);
    event LastAdminRenounced(address indexed previousAdmin);
    event Paused(address indexed updater, PausableFeature[] features);
    event Unpaused(address indexed updater, PausableFeature[] features);
    event PolicyUpdated(bytes32 indexed policyScope, uint64 oldPolicyId, uint64 newPolicyId);
    event SupplyCapUpdated(address indexed updater, uint256 oldSupplyCap, uint256 newSupplyCap);
    event ContractURIUpdated();
    event NameUpdated(address indexed updater, string newName);
    event SymbolUpdated(address indexed updater, string newSymbol);
    event EIP712DomainChanged();

    bytes32 public constant DEFAULT_ADMIN_ROLE = 0x00;
    bytes32 public constant MINT_ROLE = keccak256('MINT_ROLE');
    bytes32 public constant BURN_ROLE = keccak256('BURN_ROLE');
    bytes32 public constant BURN_BLOCKED_ROLE = keccak256('BURN_BLOCKED_ROLE');
    bytes32 public constant PAUSE_ROLE = keccak256('PAUSE_ROLE');
    bytes32 public constant UNPAUSE_ROLE = keccak256('UNPAUSE_ROLE');
    bytes32 public constant METADATA_ROLE = keccak256('METADATA_ROLE');
    bytes32 public constant TRANSFER_SENDER_POLICY = keccak256('TRANSFER_SENDER_POLICY');
    bytes32 public constant TRANSFER_RECEIVER_POLICY = keccak256('TRANSFER_RECEIVER_POLICY');
    bytes32 public constant TRANSFER_EXECUTOR_POLICY = keccak256('TRANSFER_EXECUTOR_POLICY');
    bytes32 public constant MINT_RECEIVER_POLICY = keccak256('MINT_RECEIVER_POLICY');
    // Cobalt's seize surface; their getters answer from Cobalt (B20TokenSeize.sol).
    bytes32 internal constant SEIZE_ROLE_ID = keccak256('SEIZE_ROLE');
    bytes32 internal constant SEIZE_EXEMPT_SCOPE = keccak256('SEIZE_EXEMPT_POLICY');
    bytes32 internal constant SEIZE_RECEIVER_SCOPE = keccak256('SEIZE_RECEIVER_POLICY');

    /// The upgrade whose logic this code is (Base freezes one version per upgrade); the node runs
    /// the version of the executing block's upgrade (hooks/b20-forks.ts).
    uint8 internal constant BERYL = 0;
    uint8 internal constant COBALT = 1;
    uint8 internal constant DENIM = 2;

    function _fork() internal pure virtual returns (uint8);

    /// A selector added by a later upgrade is unknown before it.
    modifier since(uint8 fork) {
        if (_fork() < fork) revertUnknownSelector();
        _;
    }

    bytes32 internal constant ROOT = 0xc78b71fee795ddd74aff64ea9b2474194c938c3196430e10bb5f01ed48434000;
    bytes32 internal constant ASSET_ROOT = 0xfdc6d4552d1286ade4d9facdbf0fb50d2ec9b89a90e104f26fd277585e374b00;
    bytes32 internal constant STABLECOIN_ROOT = 0x35827975a06ca0e9367ea3129b19441d45d0ca58e30b7693f09e73d0943d6200;
    bytes32 internal constant PERMIT_TYPEHASH =
        keccak256('Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)');
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
    uint256 internal constant MAX_SUPPLY_CAP = type(uint128).max;
    uint256 internal constant ADMIN_COUNT_MASK = (1 << 248) - 1;

    struct Core {
        string name;
        string symbol;
        string contractURI;
        uint256 totalSupply;
        mapping(address => uint256) balances;
        mapping(address => mapping(address => uint256)) allowances;
        mapping(bytes32 => mapping(address => bool)) roles;
        mapping(bytes32 => bytes32) roleAdmins;
        uint256 adminCountAndInitialized;
        uint256 transferPolicyIds; // 64-bit lanes: sender, receiver, executor
        uint256 mintPolicyIds; // lane 0: mint receiver
        uint256 paused; // bit per PausableFeature
        uint256 supplyCap;
        mapping(address => uint256) nonces;
        uint256 seizePolicyIds; // Cobalt, 64-bit lanes: exempt holders, receivers
    }

    /// "base.b20.asset" (base/base b20_asset/storage.rs): decimals, multiplier (0 reads as WAD),
    /// used announcement ids, extra metadata; the string keys hash as Solidity's.
    struct AssetExt {
        uint8 decimals;
        uint256 multiplier;
        mapping(string => bool) usedAnnouncementIds;
        mapping(string => string) extraMetadata;
        // Cobalt (ERC-8056): one scheduled multiplier, packed in one word.
        uint128 pendingMultiplier;
        uint64 pendingEffectiveAt;
    }

    struct StablecoinExt {
        string currency;
    }

    function _core() internal pure returns (Core storage c) {
        assembly {
            c.slot := ROOT
        }
    }

    function _asset() internal pure returns (AssetExt storage a) {
        assembly {
            a.slot := ASSET_ROOT
        }
    }

    function _stablecoin() internal pure returns (StablecoinExt storage s) {
        assembly {
            s.slot := STABLECOIN_ROOT
        }
    }

    modifier nonPayable() {
        if (msg.value != 0) revert NonPayable();
        _;
    }

    modifier onlyRole(bytes32 role) {
        _checkRole(role);
        _;
    }


    function isPaused(PausableFeature feature) public view returns (bool) {
        return _core().paused & (1 << uint8(feature)) != 0;
    }

    // ---------------------------------------------------------------- internals

    function _isStablecoin() internal view returns (bool) {
        return uint8(uint160(address(this)) >> 72) == 1;
    }

    /// The B20 prefix (0xB2, nine zero bytes): Denim refuses credits to any such address.
    function _isB20Address(address a) internal pure returns (bool) {
        return uint160(a) >> 80 == uint160(0xB2) << 72;
    }

    function _checkRole(bytes32 role) internal view {
        if (msg.sender == B20_FACTORY) return;
        if (!_core().roles[role][msg.sender]) revert AccessControlUnauthorizedAccount(msg.sender, role);
    }

    /// A role flag written whole: Base stores a bool as its own word with no read first (Solidity's
    /// assignment would read the slot to keep the word's other bytes).
    function _setRole(bytes32 role, address account, bool enabled) internal {
        mapping(address => bool) storage members = _core().roles[role];
        assembly {
            mstore(0x00, account)
            mstore(0x20, members.slot)
            sstore(keccak256(0x00, 0x40), enabled)
        }
    }

    /// The role's admin role: the factory's calls pass without reading it, as Base's privileged path.
    function _checkRoleAdmin(bytes32 role) internal view {
        if (msg.sender == B20_FACTORY) return;
        _checkRole(_core().roleAdmins[role]);
    }

    function _revoke(bytes32 role, address account) internal {
        Core storage c = _core();
        if (!c.roles[role][account]) return;
        if (role == DEFAULT_ADMIN_ROLE) {
            if (c.adminCountAndInitialized & ADMIN_COUNT_MASK == 1) revert LastAdminCannotRenounce();
            c.adminCountAndInitialized -= 1;
        }
        _setRole(role, account, false);
        emit RoleRevoked(role, account, msg.sender);
    }

    function _requireNotPaused(PausableFeature feature) internal view {
        if (isPaused(feature)) revert ContractPaused(feature);
    }

    function _lane(uint256 packed, uint256 lane) internal pure returns (uint64) {
        return uint64(packed >> (lane * 64));
    }

    function _policySlot(bytes32 scope) internal view returns (uint256 packed, uint256 lane) {
        Core storage c = _core();
        if (scope == TRANSFER_SENDER_POLICY) return (c.transferPolicyIds, 0);
        if (scope == TRANSFER_RECEIVER_POLICY) return (c.transferPolicyIds, 1);
        if (scope == TRANSFER_EXECUTOR_POLICY) return (c.transferPolicyIds, 2);
        if (scope == MINT_RECEIVER_POLICY) return (c.mintPolicyIds, 0);
        if (_fork() >= COBALT && scope == SEIZE_EXEMPT_SCOPE) return (c.seizePolicyIds, 0);
        if (_fork() >= COBALT && scope == SEIZE_RECEIVER_SCOPE) return (c.seizePolicyIds, 1);
        revert UnsupportedPolicyType(scope);
    }

    function _requireAuthorized(bytes32 scope, uint64 id, address account) internal view {
        if (id == 0) return; // ALWAYS_ALLOW, without a registry call
        if (!IPolicyCheck(POLICY_REGISTRY).isAuthorized(id, account)) revert PolicyForbids(scope, id);
    }

    function _checkReceiver(address to) internal pure {
        if (to == address(0) || (_fork() >= DENIM && _isB20Address(to))) revert InvalidReceiver(to);
    }

    /// transfer: pause, zero receiver (and, Denim, any B20 address), zero sender, then _transfer.
    function _transferChecked(address from, address to, uint256 amount) internal {
        _requireNotPaused(PausableFeature.TRANSFER);
        _checkReceiver(to);
        if (from == address(0)) revert InvalidSender(from);
        _transfer(from, to, amount);
    }

    /// transferFrom: pause, zero receiver, zero sender, allowance, then _transfer; an infinite
    /// allowance is neither checked nor spent.
    function _transferFrom(address from, address to, uint256 amount) internal {
        _requireNotPaused(PausableFeature.TRANSFER);
        _checkReceiver(to);
        if (from == address(0)) revert InvalidSender(from);
        Core storage c = _core();
        uint256 allowed = c.allowances[from][msg.sender];
        bool infinite = allowed == type(uint256).max;
        if (!infinite && allowed < amount) revert InsufficientAllowance(msg.sender, allowed, amount);
        _transfer(from, to, amount);
        if (!infinite) c.allowances[from][msg.sender] = allowed - amount;
    }

    /// Executor (from Denim on every path, before it only a spender's), sender, receiver policies,
    /// then the balance; the factory's calls skip the three policies.
    function _transfer(address from, address to, uint256 amount) internal {
        if (msg.sender != B20_FACTORY) {
            uint256 ids = _core().transferPolicyIds;
            // Before Denim only a spender moving another's tokens meets the executor policy.
            if (_fork() >= DENIM || msg.sender != from) {
                _requireAuthorized(TRANSFER_EXECUTOR_POLICY, _lane(ids, 2), msg.sender);
            }
            _requireAuthorized(TRANSFER_SENDER_POLICY, _lane(ids, 0), from);
            _requireAuthorized(TRANSFER_RECEIVER_POLICY, _lane(ids, 1), to);
        }
        _move(from, to, amount);
    }

    function _move(address from, address to, uint256 amount) internal {
        Core storage c = _core();
        uint256 balance = c.balances[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        // Both balances read before either is written, as Base's transfer_inner (a static call's
        // write fails after the same reads).
        if (from != to) {
            uint256 toBalance = c.balances[to];
            c.balances[from] = balance - amount;
            c.balances[to] = toBalance + amount;
        }
        emit Transfer(from, to, amount);
    }

    function _approve(address owner, address spender, uint256 amount) internal {
        if (owner == address(0)) revert InvalidApprover(owner);
        if (spender == address(0)) revert InvalidSpender(spender);
        _core().allowances[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    /// mint: role, pause, mint-receiver policy (privileged calls too), receiver, supply cap.
    function _mint(address to, uint256 amount) internal {
        _checkRole(MINT_ROLE);
        _mintUnchecked(to, amount);
    }

    /// mint without the role check: batchMint's inner mints (base/base b20_asset logic v1.rs).
    function _mintUnchecked(address to, uint256 amount) internal {
        _requireNotPaused(PausableFeature.MINT);
        Core storage c = _core();
        _requireAuthorized(MINT_RECEIVER_POLICY, _lane(c.mintPolicyIds, 0), to);
        _checkReceiver(to);
        uint256 attempted = c.totalSupply + amount;
        if (attempted > c.supplyCap) revert SupplyCapExceeded(c.supplyCap, attempted);
        c.totalSupply = attempted;
        c.balances[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function _burnOwn(uint256 amount) internal {
        _checkRole(BURN_ROLE);
        _requireNotPaused(PausableFeature.BURN);
        _burn(msg.sender, amount);
    }

    function _burn(address from, uint256 amount) internal {
        Core storage c = _core();
        uint256 balance = c.balances[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        c.balances[from] = balance - amount;
        c.totalSupply -= amount;
        emit Transfer(from, address(0), amount);
    }
}

