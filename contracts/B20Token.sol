// SPDX-License-Identifier: MIT
// Base's B20 token (both variants; the variant is byte 10 of the token's own address) with the Beryl
// IB20 surface (base/base common/abi/v1.rs) and Denim's rules (credits to a B20 address refused,
// the executor policy on every transfer). State sits in Base's ERC-7201 layout: "base.b20" for the
// core fields, "base.b20.asset" (decimals, multiplier) and "base.b20.stablecoin" (currency)
// (base/base common/core_storage.rs, b20_asset/storage.rs, b20_stablecoin/storage.rs). Calls from
// the B20Factory are privileged: no role or transfer-policy gate (Beryl spec, initCalls semantics).
pragma solidity ^0.8.28;

import {B20_FACTORY, IPolicyCheck, POLICY_REGISTRY, revertUnknownSelector} from './B20Shared.sol';

contract B20Token {
    enum PausableFeature {
        TRANSFER,
        MINT,
        BURN
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

    bytes32 private constant ROOT = 0xc78b71fee795ddd74aff64ea9b2474194c938c3196430e10bb5f01ed48434000;
    bytes32 private constant ASSET_ROOT = 0xfdc6d4552d1286ade4d9facdbf0fb50d2ec9b89a90e104f26fd277585e374b00;
    bytes32 private constant STABLECOIN_ROOT = 0x35827975a06ca0e9367ea3129b19441d45d0ca58e30b7693f09e73d0943d6200;
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256('Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)');
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
    uint256 private constant MAX_SUPPLY_CAP = type(uint128).max;
    uint256 private constant ADMIN_COUNT_MASK = (1 << 248) - 1;
    uint256 private constant INITIALIZED = 1 << 248;

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
    }

    struct AssetExt {
        uint8 decimals;
        uint256 multiplier;
    }

    struct StablecoinExt {
        string currency;
    }

    function _core() private pure returns (Core storage c) {
        assembly {
            c.slot := ROOT
        }
    }

    function _asset() private pure returns (AssetExt storage a) {
        assembly {
            a.slot := ASSET_ROOT
        }
    }

    function _stablecoin() private pure returns (StablecoinExt storage s) {
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

    // ---------------------------------------------------------------- creation (factory only)

    function b20Initialize(string calldata name_, string calldata symbol_, uint8 decimals_, string calldata currency_)
        external
        payable
    {
        Core storage c = _core();
        if (msg.sender != B20_FACTORY || c.adminCountAndInitialized & INITIALIZED != 0) revertUnknownSelector();
        c.adminCountAndInitialized |= INITIALIZED;
        c.name = name_;
        c.symbol = symbol_;
        c.supplyCap = MAX_SUPPLY_CAP;
        if (_isStablecoin()) {
            _stablecoin().currency = currency_;
        } else {
            AssetExt storage a = _asset();
            a.decimals = decimals_;
            a.multiplier = 1e18;
        }
    }

    // ---------------------------------------------------------------- ERC-20

    function name() external view returns (string memory) {
        return _core().name;
    }

    function symbol() external view returns (string memory) {
        return _core().symbol;
    }

    function decimals() public view returns (uint8) {
        if (_isStablecoin()) return 6;
        uint8 d = _asset().decimals;
        return d == 0 ? 6 : d;
    }

    function currency() external view returns (string memory) {
        if (!_isStablecoin()) revertUnknownSelector();
        return _stablecoin().currency;
    }

    function totalSupply() external view returns (uint256) {
        return _core().totalSupply;
    }

    function balanceOf(address account) external view returns (uint256) {
        return _core().balances[account];
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return _core().allowances[owner][spender];
    }

    function transfer(address to, uint256 amount) external payable nonPayable returns (bool) {
        _transferChecked(msg.sender, to, amount);
        return true;
    }

    function transferWithMemo(address to, uint256 amount, bytes32 memo) external payable nonPayable returns (bool) {
        _transferChecked(msg.sender, to, amount);
        emit Memo(msg.sender, memo);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external payable nonPayable returns (bool) {
        _transferFrom(from, to, amount);
        return true;
    }

    function transferFromWithMemo(address from, address to, uint256 amount, bytes32 memo)
        external
        payable
        nonPayable
        returns (bool)
    {
        _transferFrom(from, to, amount);
        emit Memo(msg.sender, memo);
        return true;
    }

    function approve(address spender, uint256 amount) external payable nonPayable returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    // ---------------------------------------------------------------- mint and burn

    function mint(address to, uint256 amount) external payable nonPayable {
        _mint(to, amount);
    }

    function mintWithMemo(address to, uint256 amount, bytes32 memo) external payable nonPayable {
        _mint(to, amount);
        emit Memo(msg.sender, memo);
    }

    function burn(uint256 amount) external payable nonPayable {
        _burnOwn(amount);
    }

    function burnWithMemo(uint256 amount, bytes32 memo) external payable nonPayable {
        _burnOwn(amount);
        emit Memo(msg.sender, memo);
    }

    /// Burns from an account the sender policy refuses (a blocked holder).
    function burnBlocked(address from, uint256 amount) external payable nonPayable onlyRole(BURN_BLOCKED_ROLE) {
        _requireNotPaused(PausableFeature.BURN);
        uint64 id = _lane(_core().transferPolicyIds, 0);
        if (IPolicyCheck(POLICY_REGISTRY).isAuthorized(id, from)) revert AccountNotBlocked(from);
        _burn(from, amount);
        emit BurnedBlocked(msg.sender, from, amount);
    }

    // ---------------------------------------------------------------- roles

    function hasRole(bytes32 role, address account) public view returns (bool) {
        return _core().roles[role][account];
    }

    function getRoleAdmin(bytes32 role) public view returns (bytes32) {
        return _core().roleAdmins[role];
    }

    function grantRole(bytes32 role, address account) external payable nonPayable onlyRole(getRoleAdmin(role)) {
        Core storage c = _core();
        if (c.roles[role][account]) return;
        c.roles[role][account] = true;
        if (role == DEFAULT_ADMIN_ROLE) c.adminCountAndInitialized += 1;
        emit RoleGranted(role, account, msg.sender);
    }

    function revokeRole(bytes32 role, address account) external payable nonPayable onlyRole(getRoleAdmin(role)) {
        _revoke(role, account);
    }

    function renounceRole(bytes32 role, address callerConfirmation) external payable nonPayable {
        if (callerConfirmation != msg.sender) revert AccessControlBadConfirmation();
        _revoke(role, msg.sender);
    }

    /// The sole admin gives the token up: no admin is left.
    function renounceLastAdmin() external payable nonPayable onlyRole(DEFAULT_ADMIN_ROLE) {
        Core storage c = _core();
        if (c.adminCountAndInitialized & ADMIN_COUNT_MASK != 1) revert NotSoleAdmin();
        c.roles[DEFAULT_ADMIN_ROLE][msg.sender] = false;
        c.adminCountAndInitialized -= 1;
        emit RoleRevoked(DEFAULT_ADMIN_ROLE, msg.sender, msg.sender);
        emit LastAdminRenounced(msg.sender);
    }

    /// AccessControl's rule: the role's current admin role sets its next one.
    function setRoleAdmin(bytes32 role, bytes32 newAdminRole)
        external
        payable
        nonPayable
        onlyRole(getRoleAdmin(role))
    {
        Core storage c = _core();
        bytes32 previous = c.roleAdmins[role];
        c.roleAdmins[role] = newAdminRole;
        emit RoleAdminChanged(role, previous, newAdminRole);
    }

    // ---------------------------------------------------------------- pause

    function pausedFeatures() external view returns (PausableFeature[] memory features) {
        uint256 bits = _core().paused;
        uint256 n;
        for (uint8 i = 0; i <= uint8(PausableFeature.BURN); i++) if (bits & (1 << i) != 0) n++;
        features = new PausableFeature[](n);
        n = 0;
        for (uint8 i = 0; i <= uint8(PausableFeature.BURN); i++) if (bits & (1 << i) != 0) features[n++] = PausableFeature(i);
    }

    function isPaused(PausableFeature feature) public view returns (bool) {
        return _core().paused & (1 << uint8(feature)) != 0;
    }

    function pause(PausableFeature[] calldata features) external payable nonPayable onlyRole(PAUSE_ROLE) {
        if (features.length == 0) revert EmptyFeatureSet();
        Core storage c = _core();
        for (uint256 i = 0; i < features.length; i++) c.paused |= 1 << uint8(features[i]);
        emit Paused(msg.sender, features);
    }

    function unpause(PausableFeature[] calldata features) external payable nonPayable onlyRole(UNPAUSE_ROLE) {
        if (features.length == 0) revert EmptyFeatureSet();
        Core storage c = _core();
        for (uint256 i = 0; i < features.length; i++) c.paused &= ~(1 << uint8(features[i]));
        emit Unpaused(msg.sender, features);
    }

    // ---------------------------------------------------------------- policies and supply cap

    function policyId(bytes32 policyScope) public view returns (uint64) {
        (uint256 slotValue, uint256 lane) = _policySlot(policyScope);
        return _lane(slotValue, lane);
    }

    function updatePolicy(bytes32 policyScope, uint64 newPolicyId)
        external
        payable
        nonPayable
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        (uint256 packed, uint256 lane) = _policySlot(policyScope);
        if (!IPolicyCheck(POLICY_REGISTRY).policyExists(newPolicyId)) revert PolicyNotFound(newPolicyId);
        uint64 old = _lane(packed, lane);
        uint256 shift = lane * 64;
        packed = (packed & ~(uint256(type(uint64).max) << shift)) | (uint256(newPolicyId) << shift);
        Core storage c = _core();
        if (policyScope == MINT_RECEIVER_POLICY) c.mintPolicyIds = packed;
        else c.transferPolicyIds = packed;
        emit PolicyUpdated(policyScope, old, newPolicyId);
    }

    function supplyCap() external view returns (uint256) {
        return _core().supplyCap;
    }

    function updateSupplyCap(uint256 newSupplyCap) external payable nonPayable onlyRole(DEFAULT_ADMIN_ROLE) {
        Core storage c = _core();
        if (newSupplyCap < c.totalSupply || newSupplyCap > MAX_SUPPLY_CAP) {
            revert InvalidSupplyCap(c.totalSupply, newSupplyCap);
        }
        uint256 old = c.supplyCap;
        c.supplyCap = newSupplyCap;
        emit SupplyCapUpdated(msg.sender, old, newSupplyCap);
    }

    // ---------------------------------------------------------------- metadata

    function updateName(string calldata newName) external payable nonPayable onlyRole(METADATA_ROLE) {
        _core().name = newName;
        emit NameUpdated(msg.sender, newName);
        emit EIP712DomainChanged();
    }

    function updateSymbol(string calldata newSymbol) external payable nonPayable onlyRole(METADATA_ROLE) {
        _core().symbol = newSymbol;
        emit SymbolUpdated(msg.sender, newSymbol);
    }

    function contractURI() external view returns (string memory) {
        return _core().contractURI;
    }

    function updateContractURI(string calldata newURI) external payable nonPayable onlyRole(METADATA_ROLE) {
        _core().contractURI = newURI;
        emit ContractURIUpdated();
    }

    // ---------------------------------------------------------------- EIP-2612 and ERC-5267

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(_core().name)), keccak256('1'), block.chainid, address(this))
        );
    }

    function nonces(address owner) external view returns (uint256) {
        return _core().nonces[owner];
    }

    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
        payable
        nonPayable
    {
        if (block.timestamp > deadline) revert ExpiredSignature(deadline);
        Core storage c = _core();
        uint256 nonce = c.nonces[owner];
        bytes32 digest = keccak256(
            abi.encodePacked(
                '\x19\x01',
                DOMAIN_SEPARATOR(),
                keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonce, deadline))
            )
        );
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0) || signer != owner) revert InvalidSigner(signer, owner);
        c.nonces[owner] = nonce + 1;
        _approve(owner, spender, value);
    }

    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name_,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex'0f', _core().name, '1', block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    fallback() external payable {
        revertUnknownSelector();
    }

    /// Empty calldata: an empty revert, as an unknown (absent) selector.
    receive() external payable {
        revertUnknownSelector();
    }

    // ---------------------------------------------------------------- internals

    function _isStablecoin() private view returns (bool) {
        return uint8(uint160(address(this)) >> 72) == 1;
    }

    /// The B20 prefix (0xB2, nine zero bytes): Denim refuses credits to any such address.
    function _isB20Address(address a) private pure returns (bool) {
        return uint160(a) >> 80 == uint160(0xB2) << 72;
    }

    function _checkRole(bytes32 role) private view {
        if (msg.sender == B20_FACTORY) return;
        if (!_core().roles[role][msg.sender]) revert AccessControlUnauthorizedAccount(msg.sender, role);
    }

    function _revoke(bytes32 role, address account) private {
        Core storage c = _core();
        if (!c.roles[role][account]) return;
        if (role == DEFAULT_ADMIN_ROLE) {
            if (c.adminCountAndInitialized & ADMIN_COUNT_MASK == 1) revert LastAdminCannotRenounce();
            c.adminCountAndInitialized -= 1;
        }
        c.roles[role][account] = false;
        emit RoleRevoked(role, account, msg.sender);
    }

    function _requireNotPaused(PausableFeature feature) private view {
        if (isPaused(feature)) revert ContractPaused(feature);
    }

    function _lane(uint256 packed, uint256 lane) private pure returns (uint64) {
        return uint64(packed >> (lane * 64));
    }

    function _policySlot(bytes32 scope) private view returns (uint256 packed, uint256 lane) {
        Core storage c = _core();
        if (scope == TRANSFER_SENDER_POLICY) return (c.transferPolicyIds, 0);
        if (scope == TRANSFER_RECEIVER_POLICY) return (c.transferPolicyIds, 1);
        if (scope == TRANSFER_EXECUTOR_POLICY) return (c.transferPolicyIds, 2);
        if (scope == MINT_RECEIVER_POLICY) return (c.mintPolicyIds, 0);
        revert UnsupportedPolicyType(scope);
    }

    function _requireAuthorized(bytes32 scope, uint64 id, address account) private view {
        if (id == 0) return; // ALWAYS_ALLOW, without a registry call
        if (!IPolicyCheck(POLICY_REGISTRY).isAuthorized(id, account)) revert PolicyForbids(scope, id);
    }

    function _checkReceiver(address to) private pure {
        if (to == address(0) || _isB20Address(to)) revert InvalidReceiver(to);
    }

    /// transfer: pause, zero receiver (and, Denim, any B20 address), zero sender, then _transfer.
    function _transferChecked(address from, address to, uint256 amount) private {
        _requireNotPaused(PausableFeature.TRANSFER);
        _checkReceiver(to);
        if (from == address(0)) revert InvalidSender(from);
        _transfer(from, to, amount);
    }

    /// transferFrom: pause, zero receiver, zero sender, allowance, then _transfer; an infinite
    /// allowance is neither checked nor spent.
    function _transferFrom(address from, address to, uint256 amount) private {
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

    /// Denim's order: executor (msg.sender, on every path), sender, receiver policies, then the
    /// balance; the factory's calls skip the three policies.
    function _transfer(address from, address to, uint256 amount) private {
        if (msg.sender != B20_FACTORY) {
            uint256 ids = _core().transferPolicyIds;
            _requireAuthorized(TRANSFER_EXECUTOR_POLICY, _lane(ids, 2), msg.sender);
            _requireAuthorized(TRANSFER_SENDER_POLICY, _lane(ids, 0), from);
            _requireAuthorized(TRANSFER_RECEIVER_POLICY, _lane(ids, 1), to);
        }
        _move(from, to, amount);
    }

    function _move(address from, address to, uint256 amount) private {
        Core storage c = _core();
        uint256 balance = c.balances[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        if (from != to) {
            c.balances[from] = balance - amount;
            c.balances[to] += amount;
        }
        emit Transfer(from, to, amount);
    }

    function _approve(address owner, address spender, uint256 amount) private {
        if (owner == address(0)) revert InvalidApprover(owner);
        if (spender == address(0)) revert InvalidSpender(spender);
        _core().allowances[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    /// mint: role, pause, mint-receiver policy (privileged calls too), receiver, supply cap.
    function _mint(address to, uint256 amount) private {
        _checkRole(MINT_ROLE);
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

    function _burnOwn(uint256 amount) private {
        _checkRole(BURN_ROLE);
        _requireNotPaused(PausableFeature.BURN);
        _burn(msg.sender, amount);
    }

    function _burn(address from, uint256 amount) private {
        Core storage c = _core();
        uint256 balance = c.balances[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        c.balances[from] = balance - amount;
        c.totalSupply -= amount;
        emit Transfer(from, address(0), amount);
    }
}
