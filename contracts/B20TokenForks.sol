// SPDX-License-Identifier: MIT
// The B20 token's logic as Beryl and Cobalt froze it (base/base freezes one version per upgrade and
// runs the executing block's): the same code as B20Token with the upgrade it answers for. Before
// Cobalt the scheduled-multiplier selectors are unknown and updateMultiplier is Beryl's; before
// Denim a credit to a B20 address is allowed and a holder's own transfer skips the executor policy.
pragma solidity ^0.8.28;

import {B20Token} from './B20Token.sol';

contract B20TokenBeryl is B20Token {
    function _fork() internal pure override returns (uint8) {
        return BERYL;
    }
}

contract B20TokenCobalt is B20Token {
    function _fork() internal pure override returns (uint8) {
        return COBALT;
    }
}
