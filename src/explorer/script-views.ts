// The explorer's script, second half: the block, transaction and address views and the page's start.
// A transaction shows pcnode_transactionStatus's name for where it is (when the node serves it) and
// the receipt's outcome; a reverted one its reason from debug_traceTransaction's callTracer (geth's
// `revertReason`), else from replaying it with eth_call; the call tree is the same callTracer answer,
// the state changes prestateTracer's diffMode, the console.log lines pcnode's consoleTracer. One a fault dropped shows where it was pre-confirmed
// and why it went. A contract's address names its creator (Otterscan's ots_getContractCreator). A
// user operation (ERC-4337, the node's bundler) shows its sender, nonce, EntryPoint and bundle. Inputs and
// logs are decoded by the node (pcnode_decodeCall, pcnode_decodeLog), which names the contracts it knows
// (pcnode_identifyContract: the user's --artifacts, the preinstalls).

export const SCRIPT_VIEWS = `
function go(hash) { if (location.hash === '#' + hash) route(); else location.hash = hash; }

async function showBlock(id) {
  var byHash = id.length === 66;
  var b = await rpc(byHash ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', [byHash ? id : '0x' + BigInt(id).toString(16), true]);
  if (!b) throw new Error('No block ' + id + ' yet.');
  var txs = el('ul', { 'class': 'rows' });
  b.transactions.forEach(function (t) {
    txs.appendChild(el('li', null, [link('tx/' + t.hash, short(t.hash), 'mono'), el('span', { 'class': 'mono' }, [short(t.from) + ' → ' + (t.to ? short(t.to) : 'create')]), el('span', null, [eth(t.value)])]));
  });
  show('Block #' + dec(b.number), [
    dl([['Hash', el('code', null, [b.hash])], ['Time', new Date(msOf(b)).toISOString()],
      ['Transactions', String(b.transactions.length)], ['Gas used', dec(b.gasUsed) + ' of ' + dec(b.gasLimit)],
      ['Base fee', b.baseFeePerGas ? gwei(b.baseFeePerGas) : undefined], ['Parent', link('block/' + b.parentHash, short(b.parentHash), 'mono')]]),
    el('h3', null, ['Transactions']), txs,
  ]);
}

function callTree(frame) {
  var head = frame.type + ' ' + short(frame.from) + ' → ' + (frame.to ? short(frame.to) : '?');
  var value = frame.value && BigInt(frame.value) > 0n ? ' · ' + eth(frame.value) : '';
  var d = frame.decoded;
  var li = el('li', null, [el('span', { 'class': 'mono' }, [head]), value, ' · gas ' + dec(frame.gasUsed),
    d ? el('span', { 'class': 'fn', 'data-source': d.source, title: decodedText(d, d.function) }, [' · ' + (d.contract ? d.contract + '.' : '') + d.function]) : null,
    frame.error ? el('span', { 'class': 'bad' }, [' · ' + frame.error + (frame.revertReason ? ': ' + frame.revertReason : '')]) : null]);
  if (frame.calls && frame.calls.length) {
    var sub = el('ul', { 'class': 'tree' });
    frame.calls.forEach(function (c) { sub.appendChild(callTree(c)); });
    li.appendChild(sub);
  }
  return li;
}

/** Why a reverted transaction reverted: the tracer's decoded reason, the node's decoding of its revert data, else eth_call's replay error. */
async function revertReason(tx, receipt, trace) {
  if (trace && trace.revertReason) return trace.revertReason;
  // A custom error (or a panic) the node decodes: the contract's ABI, else the table.
  var custom = trace && trace.output && trace.output.length >= 10 ? await maybe('pcnode_decodeError', [{ to: tx.to, data: trace.output }]) : undefined;
  if (custom) return decodedText(custom, custom.error);
  try {
    var at = '0x' + (BigInt(receipt.blockNumber) - 1n).toString(16);
    await rpc('eth_call', [{ from: tx.from, to: tx.to, data: tx.input, value: tx.value, gas: tx.gas }, at]);
  } catch (e) { return e.message; }
  return trace && trace.error ? trace.error : 'reverted without a reason';
}

// Inputs and logs as the node decodes them (pcnode_decodeCall, pcnode_decodeLog: viem, with the
// contract's ABI when the node knows the contract, else its 4-byte table), written out here: a
// tuple with its fields' names, an array's first items, a long bytes value cut short.
var MAX_ITEMS = 10;
function argText(a) {
  if (a.fields) return '{' + a.fields.map(function (f) { return f.name + ': ' + argText(f); }).join(', ') + '}';
  if (a.items) {
    var total = a.items.length + (a.more || 0);
    return '[' + a.items.slice(0, MAX_ITEMS).map(argText).join(', ') + (total > MAX_ITEMS ? ', … (' + total + ' items)' : '') + ']';
  }
  var v = String(a.value);
  if (a.type === 'string' && !a.hashed) return JSON.stringify(v.length > 120 ? v.slice(0, 120) + '…' : v);
  if (a.type === 'bytes' && v.length > 130) return v.slice(0, 130) + '… (' + (v.length - 2) / 2 + ' bytes)';
  return v;
}
function decodedText(d, name) { return name + '(' + d.args.map(function (a) { return a.name + ': ' + argText(a); }).join(', ') + ')'; }
/** name(arg: value, …), with where its ABI came from (artifact, known, signature) and its signature. */
function decodedNode(d, name, cls) {
  return el(cls ? 'div' : 'span', { 'class': cls, 'data-source': d.source, title: d.signature }, [decodedText(d, name)]);
}
/** Each call frame's function (the first MAX_DECODED frames, breadth first), as frame.decoded. */
var MAX_DECODED = 200; // frames of a call tree, logs of a receipt
async function decodeFrames(root) {
  var frames = [], queue = [root];
  while (queue.length && frames.length < MAX_DECODED) { var f = queue.shift(); frames.push(f); (f.calls || []).forEach(function (c) { queue.push(c); }); }
  await Promise.all(frames.map(async function (f) {
    if (f.to && f.input && f.input.length >= 10 && f.type.indexOf('CREATE') < 0) f.decoded = await maybe('pcnode_decodeCall', [{ to: f.to, input: f.input }]);
  }));
}
/** Name (file), and for a proxy → its implementation's. */
function contractName(who) {
  if (!who) return undefined;
  return who.name + (who.file ? ' (' + who.file + ')' : '') + (who.implementation ? ' → ' + contractName(who.implementation) : '');
}

/** prestateTracer diffMode: each touched account's balance, nonce, code and storage before → after. */
function stateDiff(diff) {
  var list = el('ul', { 'class': 'rows', id: 'state-diff' });
  var pre = diff.pre || {}, post = diff.post || {};
  Object.keys(Object.assign({}, pre, post)).sort().forEach(function (a) {
    var b = pre[a] || {}, f = post[a] || {}, parts = [];
    if (f.balance !== undefined && f.balance !== b.balance) parts.push('balance ' + eth(b.balance || '0x0') + ' → ' + eth(f.balance));
    if (f.nonce !== undefined && f.nonce !== b.nonce) parts.push('nonce ' + (b.nonce || 0) + ' → ' + f.nonce);
    if (f.code !== undefined && f.code !== b.code) parts.push('code ' + ((b.code || '0x').length - 2) / 2 + ' → ' + (f.code.length - 2) / 2 + ' bytes');
    var slots = Object.assign({}, b.storage || {}, f.storage || {});
    Object.keys(slots).sort().forEach(function (k) {
      var before = (b.storage || {})[k], after = (f.storage || {})[k];
      if (before !== after) parts.push('slot ' + short(k) + ': ' + (before ? short(before) : '0') + ' → ' + (after ? short(after) : '0'));
    });
    if (parts.length) list.appendChild(el('li', null, [link('address/' + a, short(a), 'mono'), el('span', null, [parts.join(' · ')])]));
  });
  return list;
}

var L1_FIELDS = [['L1 fee', 'l1Fee', eth], ['L1 gas used', 'l1GasUsed', dec], ['L1 gas price', 'l1GasPrice', gwei],
  ['L1 blob base fee', 'l1BlobBaseFee', gwei], ['L1 base fee scalar', 'l1BaseFeeScalar', dec], ['L1 blob base fee scalar', 'l1BlobBaseFeeScalar', dec]];

/** Each stage's time as pcnode_transactionStatus gives it (pooledAt, preconfirmedAt, sealedAt, droppedAt: ms). */
var STAGES = [['pooled', 'pooledAt'], ['pre-confirmed', 'preconfirmedAt'], ['dropped', 'droppedAt'], ['sealed', 'sealedAt']];
/** A user operation's, as pcnode_userOperationStatus gives them. */
var OP_STAGES = [['received', 'receivedAt'], ['bundled', 'bundledAt'], ['pre-confirmed', 'preconfirmedAt'], ['dropped', 'droppedAt'], ['sealed', 'sealedAt']];
function stageTimes(st, stages) {
  if (!st) return undefined;
  var parts = (stages || STAGES).filter(function (s) { return typeof st[s[1]] === 'number'; }).sort(function (a, b) { return st[a[1]] - st[b[1]]; })
    .map(function (s) { return s[0] + ' ' + clock(new Date(st[s[1]])); });
  return parts.length ? el('span', { id: 'stages' }, [parts.join(' → ')]) : undefined;
}

/** A pre-confirmation an injected fault took back: pcnode_transactionStatus still knows where it was and why. */
function showDropped(hash, st) {
  show('Transaction', [dl([['Hash', el('code', null, [hash])], ['Status', el('span', { 'class': 'bad' }, ['dropped'])],
    ['Pre-confirmed in', link('block/' + dec(st.blockNumber), '#' + dec(st.blockNumber))],
    ['Flashblock', st.flashblockIndex !== undefined ? dec(st.flashblockIndex) : undefined],
    ['Stages', stageTimes(st)], ['Reason', st.reason], ['Afterwards', st.requeued ? 'back to the pool once its block sealed' : 'discarded']])]);
}

async function showTx(hash) {
  var tx = await rpc('eth_getTransactionByHash', [hash]);
  if (!tx) {
    var st = await maybe('pcnode_transactionStatus', [hash]);
    if (st && st.status === 'dropped') { showDropped(hash, st); return; }
    throw new Error('No transaction ' + hash + '.');
  }
  var receipt = await rpc('eth_getTransactionReceipt', [hash]);
  var where = await maybe('pcnode_transactionStatus', [hash]);
  var outcome = receipt ? (receipt.status === '0x1' ? 'success' : 'reverted') : 'not in a block yet';
  var status = el('span', { 'class': receipt && receipt.status !== '0x1' ? 'bad' : 'ok' }, [(where ? where.status + ' · ' : '') + outcome]);
  var trace = receipt ? await maybe('debug_traceTransaction', [hash, { tracer: 'callTracer' }]) : undefined;
  var sealed = where && where.blockHash ? await maybe('eth_getBlockByHash', [where.blockHash, false]) : undefined;
  var target = tx.to || (receipt && receipt.contractAddress);
  var who = target ? await maybe('pcnode_identifyContract', [target]) : undefined;
  var call = tx.to && tx.input && tx.input !== '0x' ? await maybe('pcnode_decodeCall', [{ to: tx.to, input: tx.input }]) : undefined;
  var pairs = [['Hash', el('code', null, [tx.hash])], ['Status', status],
    ['Block', tx.blockNumber ? link('block/' + dec(tx.blockNumber), '#' + dec(tx.blockNumber)) : 'pending'],
    // Its stages as far as the node says: the flashblock that pre-confirmed it, then its sealed block's time.
    ['Flashblock', where && where.flashblockIndex !== undefined ? dec(where.flashblockIndex) : undefined],
    ['Block time', sealed ? new Date(msOf(sealed)).toISOString() : undefined],
    ['Stages', stageTimes(where)],
    ['From', link('address/' + tx.from, tx.from, 'mono')],
    ['To', tx.to ? link('address/' + tx.to, tx.to, 'mono') : undefined],
    ['Created', receipt && receipt.contractAddress ? link('address/' + receipt.contractAddress, receipt.contractAddress, 'mono') : undefined],
    ['Contract', contractName(who)],
    ['Value', eth(tx.value)], ['Nonce', dec(tx.nonce)],
    ['Input', tx.input && tx.input !== '0x' ? (call ? decodedNode(call, call.function) : el('code', null, [tx.input.length > 74 ? tx.input.slice(0, 74) + '… (' + (tx.input.length - 2) / 2 + ' bytes)' : tx.input])) : undefined],
    ['Gas used', receipt ? dec(receipt.gasUsed) + ' of ' + dec(tx.gas) : undefined],
    ['Gas price', receipt && receipt.effectiveGasPrice ? gwei(receipt.effectiveGasPrice) : gwei(tx.gasPrice)]];
  if (receipt) L1_FIELDS.forEach(function (f) { if (receipt[f[1]] !== undefined && receipt[f[1]] !== null) pairs.push([f[0], f[2](receipt[f[1]])]); });
  var nodes = [dl(pairs)];
  if (receipt && receipt.status !== '0x1') nodes.push(el('p', { 'class': 'reason', id: 'revert-reason' }, ['Revert reason: ' + await revertReason(tx, receipt, trace)]));
  if (receipt && receipt.logs.length) {
    nodes.push(el('h3', null, ['Logs (' + receipt.logs.length + ')']));
    // A receipt past MAX_DECODED logs shows the rest raw.
    var decodedLogs = await Promise.all(receipt.logs.slice(0, MAX_DECODED).map(function (l) { return maybe('pcnode_decodeLog', [{ address: l.address, topics: l.topics, data: l.data }]); }));
    receipt.logs.forEach(function (l, i) {
      var d = decodedLogs[i];
      nodes.push(el('div', { 'class': 'log mono' }, [link('address/' + l.address, l.address), d && d.contract ? el('span', { 'class': 'muted' }, [' ' + d.contract]) : null,
        d ? decodedNode(d, d.event, 'decoded') : null,
        el('br'), 'topics: ' + l.topics.join(', '), el('br'), 'data: ' + l.data]));
    });
  }
  // Its Solidity console.log lines, from a re-execution (pcnode's consoleTracer).
  var printed = receipt ? await maybe('debug_traceTransaction', [hash, { tracer: 'consoleTracer' }]) : undefined;
  if (printed && printed.length) {
    nodes.push(el('h3', null, ['console.log']));
    nodes.push(el('pre', { 'class': 'mono', id: 'console-log' }, [printed.join('\\n')]));
  }
  if (trace) await decodeFrames(trace);
  if (trace) { nodes.push(el('h3', null, ['Call tree'])); nodes.push(el('ul', { 'class': 'tree', id: 'call-tree' }, [callTree(trace)])); }
  var diff = receipt ? await maybe('debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]) : undefined;
  if (diff) { nodes.push(el('h3', null, ['State changes'])); nodes.push(stateDiff(diff)); }
  show('Transaction', nodes);
}

/** An ERC-4337 user operation the node's bundler took (eth_getUserOperationByHash / …Receipt), its stages' times (pcnode_userOperationStatus). */
async function showUserOp(hash) {
  var found = await rpc('eth_getUserOperationByHash', [hash]);
  if (!found) throw new Error('No user operation ' + hash + '.');
  var receipt = await maybe('eth_getUserOperationReceipt', [hash]);
  // Its stages in this node's bundler, with their times (absent for an op another bundler sent).
  var st = await maybe('pcnode_userOperationStatus', [hash]);
  var op = found.userOperation;
  var status = receipt ? el('span', { 'class': receipt.success ? 'ok' : 'bad' }, [receipt.success ? 'success' : 'reverted' + (receipt.reason && receipt.reason !== '0x' ? ': ' + receipt.reason : '')]) : 'waiting for its bundle';
  show('User operation', [dl([['Hash', el('code', null, [hash])], ['Status', status],
    ['Stages', st && st.status !== 'unknown' ? stageTimes(st, OP_STAGES) : undefined],
    ['Sender', link('address/' + op.sender, op.sender, 'mono')], ['Nonce', dec(op.nonce)],
    ['EntryPoint', link('address/' + found.entryPoint, found.entryPoint, 'mono')],
    ['Bundle', found.transactionHash ? link('tx/' + found.transactionHash, short(found.transactionHash), 'mono') : undefined],
    ['Block', found.blockNumber ? link('block/' + dec(found.blockNumber), '#' + dec(found.blockNumber)) : undefined],
    ['Gas cost', receipt ? eth(receipt.actualGasCost) : undefined]])]);
}

async function showAddress(address) {
  var got = await Promise.all([rpc('eth_getBalance', [address, 'latest']), rpc('eth_getTransactionCount', [address, 'latest']), rpc('eth_getCode', [address, 'latest'])]);
  // A contract's creator and creating transaction (ots_getContractCreator, null for an account).
  var made = got[2] !== '0x' ? await maybe('ots_getContractCreator', [address]) : undefined;
  var who = got[2] !== '0x' ? await maybe('pcnode_identifyContract', [address]) : undefined;
  var nodes = [dl([['Address', el('code', null, [address])], ['Balance', eth(got[0])], ['Nonce', dec(got[1])],
    ['Code size', ((got[2].length - 2) / 2) + ' bytes'], ['Contract', contractName(who)],
    ['Creator', made ? link('address/' + made.creator, made.creator, 'mono') : undefined],
    ['Created by', made ? link('tx/' + made.hash, short(made.hash), 'mono') : undefined]])];
  var history = await maybe('ots_searchTransactionsBefore', [address, 0, 10]);
  if (history) {
    var rows = el('ul', { 'class': 'rows' });
    history.txs.forEach(function (t) {
      rows.appendChild(el('li', null, [link('tx/' + t.hash, short(t.hash), 'mono'), link('block/' + dec(t.blockNumber), '#' + dec(t.blockNumber)),
        el('span', { 'class': 'mono' }, [short(t.from) + ' → ' + (t.to ? short(t.to) : 'create')]), el('span', null, [eth(t.value)])]));
    });
    nodes.push(el('h3', null, ['Recent transactions']));
    nodes.push(history.txs.length ? rows : el('p', { 'class': 'muted' }, ['None.']));
  }
  show('Address', nodes);
}

document.getElementById('search').addEventListener('submit', function (ev) {
  ev.preventDefault();
  search(document.getElementById('q').value).catch(function (e) { show('Search failed', [el('p', { 'class': 'bad' }, [e.message])]); });
});
window.addEventListener('hashchange', route);
rpc('eth_chainId').then(function (id) { document.getElementById('chain').textContent = 'chain ' + BigInt(id).toString(); }, function () {});
loadRecent().catch(function () {});
detectProfile().then(connect);
route();
`
