// SPDX-License-Identifier: MIT
// Base's EIP-8130 system precompiles that Cobalt installs (base/base precompiles provider.rs):
// TxContext (0x8130…aa02) and NonceManager (0x8130…aa01), addresses from base-std StdPrecompiles.
// pcnode runs no EIP-8130 transactions (Base gates them on Zenith), so the context a transaction
// publishes is never set: TxContext answers tx.origin for the sender and the payer and
// bytes32(uint256(uint160(tx.origin))) for the sender's actor id (base/base tx_context/storage.rs),
// and NonceManager reads 2D nonces that nothing increments, from the ERC-7201 namespace
// "base.nonce_manager" (nonces[account][nonceKey], offset 0; nonce/storage.rs).
pragma solidity ^0.8.28;

import {revertUnknownSelector} from './B20Shared.sol';

address constant TX_CONTEXT = 0x813000000000000000000000000000000000aa02;
address constant NONCE_MANAGER = 0x813000000000000000000000000000000000aa01;

contract B20TxContext {
    error DelegateCallNotAllowed();

    modifier direct() {
        if (address(this) != TX_CONTEXT) revert DelegateCallNotAllowed();
        _;
    }

    /// The resolved sender of the running EIP-8130 transaction; tx.origin outside one.
    function getTransactionSender() external view direct returns (address) {
        return tx.origin;
    }

    /// The resolved payer (the sender when self-paying); tx.origin outside an EIP-8130 transaction.
    function getTransactionPayer() external view direct returns (address) {
        return tx.origin;
    }

    /// The actor id the sender authenticated as; outside EIP-8130 the origin right-aligned.
    function getTransactionSenderActorId() external view direct returns (bytes32) {
        return bytes32(uint256(uint160(tx.origin)));
    }

    fallback() external payable {
        revertUnknownSelector();
    }

    receive() external payable {
        revertUnknownSelector();
    }
}

contract B20NonceManager {
    error NonPayable();
    error ProtocolNonceNotSupported();

    bytes32 private constant ROOT = 0x9d3ea32ad25774a46482ebbae019e8da4242109d164d324a59aa787515b9fe00;

    struct Layout {
        mapping(address => mapping(uint256 => uint64)) nonces;
    }

    function _layout() private pure returns (Layout storage l) {
        assembly {
            l.slot := ROOT
        }
    }

    /// The 2D nonce of `account` on channel `nonceKey`. Key 0 is the protocol nonce, held in the
    /// account (ProtocolNonceNotSupported); value is refused first (NonPayable).
    function getNonce(address account, uint256 nonceKey) external payable returns (uint64) {
        if (msg.value != 0) revert NonPayable();
        if (nonceKey == 0) revert ProtocolNonceNotSupported();
        return _layout().nonces[account][nonceKey];
    }

    fallback() external payable {
        revertUnknownSelector();
    }

    receive() external payable {
        revertUnknownSelector();
    }
}
