// SPDX-License-Identifier: MIT
// Cobalt's seize surface on both variants (base-std's seize changelog, "Seize surface and
// burnBlocked deprecation"): SEIZE_ROLE moves a seizable holder's balance to a receiver in one call,
// without allowance or transfer policies; who is seizable is read inverted from SEIZE_EXEMPT_POLICY
// (an account it authorizes is exempt; unset, nobody is seizable), where it may land from
// SEIZE_RECEIVER_POLICY. Both ids sit in slot 14 of "base.b20"; PausableFeature.SEIZE pauses it alone.
pragma solidity ^0.8.28;

import {IPolicyCheck, POLICY_REGISTRY} from './B20Shared.sol';
import {B20TokenBase} from './B20TokenBase.sol';

abstract contract B20TokenSeize is B20TokenBase {
    error AccountNotSeizable(address account);

    event Seized(address indexed caller, address indexed from, address indexed to, uint256 amount);

    function SEIZE_ROLE() external pure since(COBALT) returns (bytes32) {
        return SEIZE_ROLE_ID;
    }

    function SEIZE_EXEMPT_POLICY() external pure since(COBALT) returns (bytes32) {
        return SEIZE_EXEMPT_SCOPE;
    }

    function SEIZE_RECEIVER_POLICY() external pure since(COBALT) returns (bytes32) {
        return SEIZE_RECEIVER_SCOPE;
    }

    /// Pause (SEIZE), role, receiver and sender (zero, then self), the exempt and receiver policies,
    /// the balance; then Transfer, Memo, Seized. totalSupply is unchanged.
    function seizeWithMemo(address from, address to, uint256 amount, bytes32 memo)
        external
        payable
        nonPayable
        since(COBALT)
        returns (bool)
    {
        _requireNotPaused(PausableFeature.SEIZE);
        _checkRole(SEIZE_ROLE_ID);
        _checkReceiver(to);
        if (from == address(0)) revert InvalidSender(from);
        if (from == to) revert InvalidReceiver(to);
        uint256 ids = _core().seizePolicyIds;
        uint64 exempt = _lane(ids, 0);
        if (exempt == 0 || IPolicyCheck(POLICY_REGISTRY).isAuthorized(exempt, from)) revert AccountNotSeizable(from);
        _requireAuthorized(SEIZE_RECEIVER_SCOPE, _lane(ids, 1), to);
        _move(from, to, amount);
        emit Memo(msg.sender, memo);
        emit Seized(msg.sender, from, to, amount);
        return true;
    }
}
