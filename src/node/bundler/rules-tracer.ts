// ERC-7562's validation rules as a geth JS tracer (the API the node's debug_traceCall runs, as alto's and
// rundler's collector tracers use it), over handleOps run as the bundle will run it. It sees only the
// validation phase (up to the EntryPoint's BeforeExecution event), gives each frame the entity whose
// call from the EntryPoint it is in (the account, the paymaster, the factory through the SenderCreator),
// and reports what the rules forbid there, with handleOps' output (a FailedOp when it reverted):
// - OP-011: the banned opcodes; OP-012: GAS not followed by a call; OP-031: CREATE/CREATE2 outside the factory;
// - OP-061: a call with value to anything but the EntryPoint;
// - STO-010/STO-021: storage other than the sender's own or slots associated with the sender
//   (keccak256(sender || …) + up to 128), the EntryPoint's own storage excepted. Staked entities' extra
//   rights are not modelled: every entity is checked as unstaked.
// Config: { entryPoint, sender, paymaster, senderCreator } as lowercase hex addresses. Outside every
// entity's frame the code running is the EntryPoint's; a frame's storage is its callee's, or for
// DELEGATECALL/CALLCODE its caller's. (No comments inside the source: a tracer may arrive on one line.)
export const RULES_TRACER = `{
  cfg: null, done: false, frames: [], violations: [], lastOp: '', lastEntity: null, keccakPending: false, assoc: [],
  banned: { GASPRICE: 1, GASLIMIT: 1, DIFFICULTY: 1, PREVRANDAO: 1, TIMESTAMP: 1, BASEFEE: 1, BLOCKHASH: 1, NUMBER: 1,
    SELFBALANCE: 1, BALANCE: 1, ORIGIN: 1, COINBASE: 1, SELFDESTRUCT: 1, BLOBHASH: 1, BLOBBASEFEE: 1, INVALID: 1 },
  calls: { CALL: 1, DELEGATECALL: 1, CALLCODE: 1, STATICCALL: 1 },
  beforeExecution: 'bb47ee3e183a558b1a2ff0874b079f3fc5478b7454eacf2bfc5af2ff5878f972',
  setup: function (cfg) { cfg = typeof cfg === 'string' ? JSON.parse(cfg) : cfg; this.cfg = cfg; this.senderWord = '000000000000000000000000' + cfg.sender.slice(2); },
  report: function (entity, rule, what) {
    if (this.violations.length < 20) this.violations.push({ entity: entity, rule: rule, what: what });
  },
  enter: function (frame) {
    var parent = this.frames.length ? this.frames[this.frames.length - 1] : null;
    var entity = parent ? parent.entity : null;
    var type = frame.getType(), to = toHex(frame.getTo()), from = toHex(frame.getFrom());
    if (!this.done && from === this.cfg.entryPoint && (type === 'CALL' || type === 'STATICCALL')) {
      entity = to === this.cfg.sender ? 'account' : to === this.cfg.paymaster ? 'paymaster' : to === this.cfg.senderCreator ? 'factory' : null;
    }
    var value = frame.getValue();
    if (!this.done && entity && value !== undefined && !value.isZero() && to !== this.cfg.entryPoint) {
      this.report(entity, 'OP-061', 'a call with value to ' + to);
    }
    var storage = (type === 'DELEGATECALL' || type === 'CALLCODE') && parent ? parent.storage : to;
    this.frames.push({ entity: entity, storage: storage });
  },
  exit: function () { this.frames.pop(); },
  step: function (log) {
    if (this.done) return;
    var op = log.op.toString();
    var frame = this.frames.length ? this.frames[this.frames.length - 1] : null;
    if (!frame || !frame.entity) {
      if (op === 'LOG1' && !frame && log.stack.peek(2).toString(16) === this.beforeExecution) this.done = true;
      this.lastOp = op;
      return;
    }
    var entity = frame.entity;
    if (this.keccakPending) { this.assoc.push(log.stack.peek(0)); this.keccakPending = false; }
    if (frame.storage === this.cfg.entryPoint) { this.lastOp = op; return; }
    if (this.lastOp === 'GAS' && !this.calls[op]) this.report(entity, 'OP-012', 'GAS not followed by a call');
    if (this.banned[op]) this.report(entity, 'OP-011', op);
    if ((op === 'CREATE' || op === 'CREATE2') && entity !== 'factory') this.report(entity, 'OP-031', op);
    if (op === 'KECCAK256' || op === 'SHA3') {
      var offset = Number(log.stack.peek(0).toString()), size = Number(log.stack.peek(1).toString());
      if (size >= 32 && toHex(log.memory.slice(offset, offset + 32)).slice(2) === this.senderWord) this.keccakPending = true;
    }
    if ((op === 'SLOAD' || op === 'SSTORE') && frame.storage !== this.cfg.sender) {
      var slot = log.stack.peek(0), associated = false;
      for (var i = 0; i < this.assoc.length && !associated; i++) {
        var d = slot.subtract(this.assoc[i]);
        associated = d.geq(0) && d.leq(128);
      }
      if (!associated) this.report(entity, 'STO-021', op + ' of slot 0x' + slot.toString(16) + ' of ' + frame.storage + ', not storage of the sender or associated with it');
    }
    this.lastOp = op;
  },
  fault: function () {},
  result: function (ctx) { return { violations: this.violations, output: toHex(ctx.output), failed: !!ctx.error }; }
}`
