// SPDX-License-Identifier: MIT
// Base's B20 token (both variants; the variant is byte 10 of the token's own address) with the
// IB20 surface (base/base common/abi/v1.rs), the Asset's (B20TokenAsset.sol) and Cobalt's seize
// (B20TokenSeize.sol). This contract is Denim's logic (credits to a B20 address refused, the executor
// policy on every transfer); B20TokenForks.sol holds Beryl's and Cobalt's, which the node runs by the
// block's upgrade. State sits in Base's ERC-7201 layout: "base.b20" for the core fields,
// "base.b20.asset" (decimals, multiplier, announcements, metadata, schedule) and "base.b20.stablecoin" (currency)
// (base/base common/core_storage.rs, b20_asset/storage.rs, b20_stablecoin/storage.rs). Calls from
// the B20Factory are privileged: no role or transfer-policy gate (Beryl spec, initCalls semantics).
pragma solidity ^0.8.28;

import {B20_FACTORY, IPolicyCheck, POLICY_REGISTRY, revertUnknownSelector} from './B20Shared.sol';
import {B20TokenAsset} from './B20TokenAsset.sol';
import {B20TokenSeize} from './B20TokenSeize.sol';

contract B20Token is B20TokenAsset, B20TokenSeize {
    /// This code is Denim's logic; B20TokenForks.sol holds Beryl's and Cobalt's.
    function _fork() internal pure virtual override returns (uint8) {
        return DENIM;
    }

    // ---------------------------------------------------------------- creation (factory only)

    function b20Initialize(string calldata name_, string calldata symbol_, uint8 decimals_, string calldata currency_)
        external
        payable
    {
        // The node routes this selector here only on the call that gives the token its marker.
        if (msg.sender != B20_FACTORY) revertUnknownSelector();
        Core storage c = _core();
        c.name = name_;
        c.symbol = symbol_;
        c.supplyCap = MAX_SUPPLY_CAP;
        if (_isStablecoin()) {
            _stablecoin().currency = currency_;
        } else {
            AssetExt storage a = _asset();
            a.decimals = decimals_;
            // Beryl's factory writes a zero multiplier, which reads as WAD (b20_factory logic/v1.rs).
            a.multiplier = 0;
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

    function grantRole(bytes32 role, address account) external payable nonPayable {
        _checkRoleAdmin(role);
        Core storage c = _core();
        if (c.roles[role][account]) return;
        _setRole(role, account, true);
        if (role == DEFAULT_ADMIN_ROLE) c.adminCountAndInitialized += 1;
        emit RoleGranted(role, account, msg.sender);
    }

    function revokeRole(bytes32 role, address account) external payable nonPayable {
        _checkRoleAdmin(role);
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
        _setRole(DEFAULT_ADMIN_ROLE, msg.sender, false);
        c.adminCountAndInitialized -= 1;
        emit RoleRevoked(DEFAULT_ADMIN_ROLE, msg.sender, msg.sender);
        emit LastAdminRenounced(msg.sender);
    }

    /// AccessControl's rule: the role's current admin role sets its next one.
    function setRoleAdmin(bytes32 role, bytes32 newAdminRole) external payable nonPayable {
        _checkRoleAdmin(role);
        Core storage c = _core();
        bytes32 previous = c.roleAdmins[role];
        c.roleAdmins[role] = newAdminRole;
        emit RoleAdminChanged(role, previous, newAdminRole);
    }

    // ---------------------------------------------------------------- pause

    function pausedFeatures() external view returns (PausableFeature[] memory features) {
        uint256 bits = _core().paused;
        uint256 n;
        uint8 last = uint8(_fork() >= COBALT ? PausableFeature.SEIZE : PausableFeature.BURN);
        for (uint8 i = 0; i <= last; i++) if (bits & (1 << i) != 0) n++;
        features = new PausableFeature[](n);
        n = 0;
        for (uint8 i = 0; i <= last; i++) if (bits & (1 << i) != 0) features[n++] = PausableFeature(i);
    }

    /// Before Cobalt the enum has three members: SEIZE fails decoding. The engine's entry check answers a
    /// direct call with Base's type-check revert first; this guards calls it does not check.
    function _requireKnownFeatures(PausableFeature[] calldata features) internal pure {
        if (_fork() >= COBALT) return;
        for (uint256 i = 0; i < features.length; i++) if (features[i] == PausableFeature.SEIZE) revert();
    }

    function pause(PausableFeature[] calldata features) external payable nonPayable onlyRole(PAUSE_ROLE) {
        _requireKnownFeatures(features);
        if (features.length == 0) revert EmptyFeatureSet();
        Core storage c = _core();
        for (uint256 i = 0; i < features.length; i++) c.paused |= 1 << uint8(features[i]);
        emit Paused(msg.sender, features);
    }

    function unpause(PausableFeature[] calldata features) external payable nonPayable onlyRole(UNPAUSE_ROLE) {
        _requireKnownFeatures(features);
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
        else if (policyScope == SEIZE_EXEMPT_SCOPE || policyScope == SEIZE_RECEIVER_SCOPE) c.seizePolicyIds = packed;
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
}
