// tm — one core's trace logic (docs/spec.md §3.2-§3.5): counters, message
// formation, the LOST/resynchronization state machine.  The predictors live
// outside (tm_top: private per core or shared); this module drives their
// request ports and consumes their combinational predictions.
//
// Timing: everything a core offers in cycle c is a combinational function of
// the retire inputs of cycle c, the _q state and the predictions; the buffer
// (tm_buffer) answers accept/drop in the same cycle; the state updates at
// the clock edge that ends cycle c.
//
// Data tracing (DATA != 0, spec §3.8, docs/rtl-data.md): the group's memory
// operand (mem_*_i) goes through the core's cache (tm_dcache in tm_top,
// DATA == 1), which answers dc_report_i; a thread in RUN whose load needs a
// report (DATA == 1) or that loads at all (DATA == 2) forms DATA(fahCnt,
// value) (tm_data_enc).  The core offers one BUNDLE: the DATA message, if
// any, then the control message, if any (offer_bits_o = DATA bits, then the
// control bits from bit offset len(DATA); offer_len_o = the sum), accepted or
// dropped as a whole.  A dropped bundle makes the thread LOST exactly as a
// dropped control message (the gap holds its whole group).  fahCnt counts
// the loads since the load of the last accepted DATA message.  With
// DATA == 0 nothing of this exists: offer_bits_o is the control message.
//
// tr_a (ENC == ENC_TR_A, spec §4.9): the thread's accumulators A_cnt and
// A_cc (acnt_q, acc_q) give the orders of the Exp-Golomb codes of cnt and
// diffCC, and TF (tf_q, the share of target mispredictions) with A_cnt the
// form of a BRANCH message (escape or T bit; tm_msg_enc).  They move only
// when the core's control message is accepted (a dropped or suppressed offer
// changes nothing; DATA messages do not take part): a BRANCH (either kind)
// folds in its bCnt and moves TF (TF - (TF >> 4), + 16 for a target
// misprediction), every message with diffCC (time stamps) its diffCC, and
// an accepted SYNC (START, TRACE_ON or OVERFLOW) resets A_cnt and A_cc to
// 32 and TF to 0.  Other encodings have no such registers.
`include "tm_assert.svh"

module tm_core
  import tm_pkg::*;
#(
  parameter int unsigned N      = 1,     // threads (for Ti)
  parameter int unsigned CORE   = 0,     // this core's index (Ti)
  parameter int unsigned ENC    = ENC_TR_E,
  parameter bit          TS     = 1'b0,
  parameter int unsigned TS_BITS = 64,
  parameter int unsigned CA = 3, CB = 2, TA = 3, TB = 4, HA = 4, HB = 2,
  parameter int unsigned DATA   = 0,     // data tracing: 0 none, 1 cfiat, 2 all
  parameter int unsigned FA = 3, FB = 2, // fahCnt chunks (DATA != 0)
  parameter int unsigned TIW    = ti_bits(N),
  // Longest control message (with the class bit Q when DATA != 0), longest
  // DATA message (1 = unused when DATA == 0), longest bundle.
  parameter int unsigned CMAXW  = ctrl_max_bits(ENC, TIW, TS, CA, CB, TA, TB, HA, HB) + ((DATA != 0) ? 1 : 0),
  parameter int unsigned DMAXW  = (DATA != 0) ? data_max_bits(TIW, FA, FB) : 1,
  parameter int unsigned MAXW   = CMAXW + ((DATA != 0) ? DMAXW : 0),
  parameter int unsigned LENW   = $clog2(MAXW + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic [63:0]       cycle_i,        // global cycle counter

  // retire interface (one group per cycle, spec §2.3)
  input  logic              rv_valid_i,     // the thread has a group this cycle
  input  logic [15:0]       rv_count_i,     // plain instructions
  input  logic              rv_npc_valid_i, // rv_npc_i is the pc after the plain instructions
  input  logic [63:0]       rv_npc_i,
  input  ev_e               rv_event_i,
  input  br_class_e         rv_class_i,
  input  logic              rv_taken_i,
  input  logic              rv_flag_i,      // START: trace-on; EXIT: trace-off
  input  logic [63:0]       rv_pc_i,
  input  logic [7:0]        rv_len_i,
  input  logic [63:0]       rv_target_i,    // branch target or exception handler
  // the group's memory operand (DATA != 0; at most one per group)
  input  logic              mem_valid_i,
  input  logic              mem_store_i,
  input  logic [6:0]        mem_size_i,     // 1 .. 64 bytes
  input  logic [511:0]      mem_value_i,    // byte k (address addr + k) in bits 8k+7..8k

  // the cache (DATA == 1, tm_top's tm_dcache of this core)
  output logic              dc_valid_o,     // the operand goes through the cache (RUN or LOST)
  input  logic              dc_report_i,    // the load needs a report
  output logic              dc_clear_o,     // SYNC(OVERFLOW) accepted: clear the flags (end of cycle)

  // predictor requests (valid only while the thread is in RUN, tr_*)
  output logic              pr_cond_o,      // gshare predict + update
  output logic              pr_ind_o,       // iBTB predict + update (ijump, icall)
  output logic              pr_push_o,      // RAS push (call, icall)
  output logic              pr_pop_o,       // RAS pop (ret)
  output logic [63:0]       pr_pc_o,
  output logic              pr_taken_o,
  output logic [63:0]       pr_target_o,
  output logic [63:0]       pr_push_addr_o,
  input  logic              pr_cond_pred_i,
  input  logic              pr_ind_hit_i,
  input  logic [63:0]       pr_ind_pred_i,
  input  logic              pr_ras_hit_i,
  input  logic [63:0]       pr_ras_pred_i,
  output logic              pr_clear_o,     // private: reset this core's predictors

  // offer to the buffer
  output logic              offer_o,
  output logic              offer_resync_o, // a LOST thread's SYNC(OVERFLOW) or END(lost)
  output msg_t              offer_msg_o,
  output logic [MAXW-1:0]   offer_bits_o,   // the bundle: DATA bits, then the control bits
  output logic [LENW-1:0]   offer_len_o,    // the bundle's length
  output logic              lost_q_o,       // the thread is LOST at the start of the cycle
  // the parts of the offer (observation)
  output logic              offer_ctrl_o,   // the offer holds a control message (offer_msg_o)
  output logic [LENW-1:0]   offer_clen_o,   // its length
  output logic              offer_data_o,   // the offer holds a DATA message
  output logic [LENW-1:0]   offer_dlen_o,   // its length
  output logic [63:0]       offer_fah_o,    // its fahCnt
  output logic [DMAXW-1:0]  offer_dbits_o,  // its bits
  // tr_a: the thread's accumulators A_cnt, A_cc, TF (observation; 32, 32,
  // 0 otherwise)
  output logic [15:0]       adapt_cnt_o,
  output logic [15:0]       adapt_cc_o,
  output logic [8:0]        adapt_tf_o,

  // answer of the buffer, same cycle
  input  logic              accept_i,
  input  logic              drop_i,         // the offer was not accepted (not a resync)
  input  logic              suppressed_i,   // shared: a lower core dropped this cycle
  input  logic              shared_drop_i   // shared: some core dropped this cycle
);

  typedef enum logic [1:0] {
    ST_IDLE = 2'd0,
    ST_RUN  = 2'd1,
    ST_LOST = 2'd2,
    ST_DONE = 2'd3
  } state_e;

  localparam logic [1:0] PEND_NONE = 2'd0;
  localparam logic [1:0] PEND_EXIT = 2'd1;
  localparam logic [1:0] PEND_STOP = 2'd2;
  localparam logic [63:0] TS_MASK = (TS_BITS >= 64) ? 64'hFFFF_FFFF_FFFF_FFFF
                                                    : ((64'd1 << TS_BITS) - 64'd1);
  localparam bit TR = (ENC != ENC_NX_B);

  state_e      state_q, state_d;
  logic [63:0] icnt_q, icnt_d, bcnt_q, bcnt_d, gap_q, gap_d, tail_q, tail_d;
  logic [63:0] pta_q, pta_d, pcc_q, pcc_d, npc_q, npc_d;
  logic        dropped_q, dropped_d;
  // With data tracing: the gap's last group has a memory operand and no
  // instruction.  A LOST thread does not resynchronize then: the debugger
  // could not tell that group from those after the gap (spec §3.5).
  logic        empty_q, empty_d, empty_now, grp_empty, grp_insn;
  logic [1:0]  pend_q, pend_d;

  // ---------------------------------------------------------------- group
  logic        is_branch, is_exc, is_exit, is_start;
  logic        reported;        // cond, ijump, icall, ret
  logic [63:0] n64, npc_new, icnt_new, bcnt_new;
  logic [1:0]  pend_new;
  logic        mispred;         // the event forms a branch message (RUN)

  assign n64       = {48'd0, rv_count_i};
  assign is_branch = rv_valid_i && rv_event_i == EV_BRANCH;
  assign is_exc    = rv_valid_i && rv_event_i == EV_EXC;
  assign is_exit   = rv_valid_i && rv_event_i == EV_EXIT;
  assign is_start  = rv_valid_i && rv_event_i == EV_START;
  assign reported  = rv_class_i == BR_COND || rv_class_i == BR_IJUMP ||
                     rv_class_i == BR_ICALL || rv_class_i == BR_RET;

  always_comb begin
    npc_new = npc_q;
    if (rv_valid_i && rv_npc_valid_i) npc_new = rv_npc_i;
    if (is_branch) npc_new = rv_taken_i ? rv_target_i : rv_pc_i + {56'd0, rv_len_i};
    if (is_exc)    npc_new = rv_target_i;
    if (is_start)  npc_new = rv_pc_i;
  end

  assign pend_new = is_exit ? (rv_flag_i ? PEND_STOP : PEND_EXIT) : PEND_NONE;
  assign icnt_new = icnt_q + (rv_valid_i ? n64 : 64'd0) + {63'd0, is_branch};
  assign bcnt_new = bcnt_q + {63'd0, TR && is_branch && reported};

  // ---------------------------------------------------------------- predictors
  logic run_q;
  assign run_q          = state_q == ST_RUN;
  assign pr_cond_o      = TR && run_q && is_branch && rv_class_i == BR_COND;
  assign pr_ind_o       = TR && run_q && is_branch &&
                          (rv_class_i == BR_IJUMP || rv_class_i == BR_ICALL);
  assign pr_push_o      = TR && run_q && is_branch &&
                          (rv_class_i == BR_CALL || rv_class_i == BR_ICALL);
  assign pr_pop_o       = TR && run_q && is_branch && rv_class_i == BR_RET;
  assign pr_pc_o        = rv_pc_i;
  assign pr_taken_o     = rv_taken_i;
  assign pr_target_o    = rv_target_i;
  assign pr_push_addr_o = rv_pc_i + {56'd0, rv_len_i};

  always_comb begin
    mispred = 1'b0;
    if (is_branch) begin
      if (TR) begin
        unique case (rv_class_i)
          BR_COND:            mispred = pr_cond_pred_i != rv_taken_i;
          BR_IJUMP, BR_ICALL: mispred = !pr_ind_hit_i || pr_ind_pred_i != rv_target_i;
          BR_RET:             mispred = !pr_ras_hit_i || pr_ras_pred_i != rv_target_i;
          default:            mispred = 1'b0;
        endcase
      end else begin
        mispred = (rv_class_i == BR_COND && rv_taken_i) || rv_class_i == BR_IJUMP ||
                  rv_class_i == BR_ICALL || rv_class_i == BR_RET;
      end
    end
  end

  // ---------------------------------------------------------------- offer
  msg_t  msg;
  logic  ctrl_raw;      // a control message, before suppression
  logic  data_raw;      // a DATA message, before suppression
  logic  offer_raw;     // the bundle, before suppression
  logic  resync;
  logic [63:0] msg_target;  // PTA after acceptance
  logic [63:0] gap_new;

  assign gap_new = gap_q + (rv_valid_i ? n64 : 64'd0) + {63'd0, is_branch} + {63'd0, is_exc};
  assign grp_insn  = rv_valid_i && ((n64 != 64'd0) || is_branch || is_exc);
  assign grp_empty = (DATA != 0) && rv_valid_i && mem_valid_i && !grp_insn;
  assign empty_now = grp_insn ? 1'b0 : (grp_empty ? 1'b1 : empty_q);

  always_comb begin
    msg        = '0;
    msg.ti     = 10'(CORE);
    msg.diff_cc = (cycle_i - pcc_q) & TS_MASK;
    ctrl_raw   = 1'b0;
    resync     = 1'b0;
    msg_target = pta_q;
    unique case (state_q)
      ST_IDLE: begin
        if (is_start) begin
          ctrl_raw   = 1'b1;
          msg.kind   = MSG_SYNC;
          msg.reason = rv_flag_i ? SYNC_TRACE_ON : SYNC_START;
          msg.addr   = rv_pc_i;
          msg_target = rv_pc_i;
        end
      end
      ST_RUN: begin
        if (is_branch && mispred) begin
          ctrl_raw  = 1'b1;
          msg.kind  = MSG_BRANCH;
          msg.cnt   = TR ? bcnt_new : icnt_new;
          msg.t     = rv_class_i != BR_COND;
          if (rv_class_i != BR_COND) begin
            msg.diff_ta = rv_target_i - pta_q;
            msg_target  = rv_target_i;
          end
        end else if (is_exc) begin
          ctrl_raw    = 1'b1;
          msg.kind    = MSG_EXC;
          msg.icnt    = icnt_new;
          msg.diff_ta = rv_target_i - pta_q;
          msg_target  = rv_target_i;
        end else if (is_exit) begin
          ctrl_raw   = 1'b1;
          msg.kind   = MSG_END;
          msg.reason = rv_flag_i ? END_STOP : END_EXIT;
          msg.icnt   = icnt_new;
        end
      end
      ST_LOST: begin
        ctrl_raw    = !(empty_now && pend_q == PEND_NONE && pend_new == PEND_NONE);
        resync      = ctrl_raw;
        msg.icnt    = tail_q;
        msg.gap     = gap_new;
        msg.dropped = dropped_q;
        if (pend_q != PEND_NONE || pend_new != PEND_NONE) begin
          msg.kind   = MSG_END;
          msg.reason = (pend_q != PEND_NONE ? pend_q == PEND_STOP : pend_new == PEND_STOP)
                       ? END_STOP : END_EXIT;
          msg.lost   = 1'b1;
        end else begin
          msg.kind   = MSG_SYNC;
          msg.reason = SYNC_OVERFLOW;
          msg.addr   = npc_new;
          msg_target = npc_new;
        end
      end
      default: ;
    endcase
  end

  assign offer_raw      = ctrl_raw | data_raw;
  assign offer_o        = offer_raw && !suppressed_i;
  assign offer_resync_o = resync;
  assign offer_msg_o    = msg;
  assign lost_q_o       = state_q == ST_LOST;
  assign offer_ctrl_o   = ctrl_raw && !suppressed_i;
  assign offer_data_o   = data_raw && !suppressed_i;

  localparam int unsigned CLENW = $clog2(CMAXW + 1);
  logic [CMAXW-1:0] cbits;
  logic [CLENW-1:0] clen;

  // tr_a: the thread's adaptive state (spec §4.9)
  logic [15:0] acnt_q, acc_q;
  logic [8:0]  tf_q;

  tm_msg_enc #(
    .TIW (TIW), .TS (TS), .CA (CA), .CB (CB), .TA (TA), .TB (TB), .HA (HA), .HB (HB), .DATA (DATA),
    .ENC (ENC), .MAXW (CMAXW)
  ) u_enc (
    .valid_i (ctrl_raw),
    .msg_i  (msg),
    .acnt_i (acnt_q),
    .acc_i  (acc_q),
    .tf_i   (tf_q),
    .bits_o (cbits),
    .len_o  (clen)
  );
  assign offer_clen_o = LENW'(clen);
  assign adapt_cnt_o  = acnt_q;
  assign adapt_cc_o   = acc_q;
  assign adapt_tf_o   = tf_q;

  // ---------------------------------------------------------------- tr_a
  if (ENC == ENC_TR_A) begin : g_adapt
    logic [15:0] acnt_d, acc_d;
    logic [16:0] acnt_next, acc_next;
    logic [8:0]  tf_d;
    logic [9:0]  tf_next;
    logic        ctrl_acc;   // this cycle's control message is accepted

    assign ctrl_acc  = ctrl_raw && offer_o && accept_i;
    assign acnt_next = adapt_next(acnt_q, msg.cnt);
    assign acc_next  = adapt_next(acc_q, msg.diff_cc);
    assign tf_next   = adapt_tf_next(tf_q, msg.t);

    always_comb begin
      acnt_d = acnt_q;
      acc_d  = acc_q;
      tf_d   = tf_q;
      if (ctrl_acc) begin
        if (msg.kind == MSG_SYNC) begin
          acnt_d = ADAPT_INIT;
          acc_d  = ADAPT_INIT;
          tf_d   = ADAPT_TF_INIT;
        end else begin
          if (msg.kind == MSG_BRANCH) begin
            acnt_d = acnt_next[15:0];
            tf_d   = tf_next[8:0];
          end
          if (TS) acc_d = acc_next[15:0];
        end
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        acnt_q <= ADAPT_INIT;
        acc_q  <= ADAPT_INIT;
        tf_q   <= ADAPT_TF_INIT;
      end else begin
        acnt_q <= acnt_d;
        acc_q  <= acc_d;
        tf_q   <= tf_d;
      end
    end

`ifndef SYNTHESIS
    // The accumulators stay below 2^16 (at most 65528) and their orders at
    // most ADAPT_KMAX; without time stamps A_cc never moves.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        // nothing to check in reset
      end else begin
        assert (acnt_q <= 16'd65528 && acc_q <= 16'd65528 &&
                32'(adapt_k(acnt_q)) <= ADAPT_KMAX && 32'(adapt_k(acc_q)) <= ADAPT_KMAX)
          else $error("tm_core %0d: adaptive state out of range: A_cnt %0d, A_cc %0d", CORE, acnt_q, acc_q);
        assert (!(ctrl_acc && msg.kind == MSG_BRANCH) || !acnt_next[16])
          else $error("tm_core %0d: A_cnt overflows", CORE);
        assert (!(ctrl_acc && TS) || !acc_next[16])
          else $error("tm_core %0d: A_cc overflows", CORE);
        assert (TS || acc_q == ADAPT_INIT)
          else $error("tm_core %0d: A_cc moved without time stamps", CORE);
        // TF stays at most 256 (256 - 16 + 16 at the top)
        assert (32'(tf_q) <= ADAPT_TF_MAX)
          else $error("tm_core %0d: TF %0d above %0d", CORE, tf_q, ADAPT_TF_MAX);
        assert (!(ctrl_acc && msg.kind == MSG_BRANCH) || 32'(tf_next) <= ADAPT_TF_MAX)
          else $error("tm_core %0d: TF would become %0d", CORE, tf_next);
      end
    end
`endif
  end else begin : g_no_adapt
    assign acnt_q = ADAPT_INIT;
    assign acc_q  = ADAPT_INIT;
    assign tf_q   = ADAPT_TF_INIT;
  end

  // ---------------------------------------------------------------- data
  logic [63:0] fah_q, fah_d;    // loads since the load of the last accepted DATA
  logic        live;            // RUN or LOST: the operand is retired and traced

  assign live       = state_q == ST_RUN || state_q == ST_LOST;
  assign dc_valid_o = (DATA != 0) && rv_valid_i && mem_valid_i && live;
  assign dc_clear_o = (DATA == 1) && resync && offer_o && accept_i && msg.kind == MSG_SYNC;
  assign offer_fah_o = fah_q;

  if (DATA != 0) begin : g_data
    localparam int unsigned DLENW = $clog2(DMAXW + 1);
    logic [DLENW-1:0] dlen;
    logic             need;

    // A load of a thread in RUN that needs a report (cfiat) or any (all).
    assign need     = (DATA == 2) || dc_report_i;
    assign data_raw = state_q == ST_RUN && dc_valid_o && !mem_store_i && need;

    tm_data_enc #(
      .TIW (TIW), .TI (CORE), .FA (FA), .FB (FB), .MAXW (DMAXW)
    ) u_data_enc (
      .valid_i (data_raw),
      .fah_i   (fah_q),
      .size_i  (mem_size_i),
      .value_i (mem_value_i),
      .bits_o  (offer_dbits_o),
      .len_o   (dlen)
    );
    assign offer_dlen_o = LENW'(dlen);

    // The bundle; the control bits move by len(DATA) only when there is one.
    always_comb begin
      if (data_raw) begin
        offer_bits_o = MAXW'(offer_dbits_o) | (MAXW'(cbits) << dlen);
        offer_len_o  = LENW'(dlen) + LENW'(clen);
      end else begin
        offer_bits_o = MAXW'(cbits);
        offer_len_o  = LENW'(clen);
      end
    end

    // Every load of a live thread counts, unless its DATA message is accepted.
    always_comb begin
      fah_d = fah_q;
      if (data_raw && offer_o && accept_i) fah_d = '0;
      else if (dc_valid_o && !mem_store_i) fah_d = fah_q + 64'd1;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) fah_q <= '0;
      else         fah_q <= fah_d;
    end
  end else begin : g_no_data
    assign data_raw      = 1'b0;
    assign offer_bits_o  = cbits;
    assign offer_len_o   = LENW'(clen);
    assign offer_dlen_o  = '0;
    assign offer_dbits_o = '0;
    assign fah_q         = '0;
    assign fah_d         = '0;
    logic unused_data;
    assign unused_data = ^{mem_valid_i, mem_store_i, mem_size_i, mem_value_i, dc_report_i, live, fah_d};
  end
  if (DATA != 1) begin : g_no_cache
    logic unused_report;
    assign unused_report = dc_report_i;
  end

  // ---------------------------------------------------------------- next state
  // The thread becomes lost (lose), before this group or after it, by its
  // own drop (lose_drop) or another core's.
  logic        lose, lose_before, lose_drop;
  logic [63:0] lose_tail;

  always_comb begin
    state_d   = state_q;
    icnt_d    = icnt_q;
    bcnt_d    = bcnt_q;
    gap_d     = gap_q;
    tail_d    = tail_q;
    pta_d     = pta_q;
    pcc_d     = pcc_q;
    npc_d     = npc_new;
    dropped_d = dropped_q;
    pend_d    = pend_q;
    empty_d   = empty_q;
    pr_clear_o = 1'b0;
    lose        = 1'b0;
    lose_before = 1'b0;
    lose_drop   = 1'b0;
    lose_tail   = '0;

    unique case (state_q)
      ST_IDLE: begin
        if (is_start) begin
          pr_clear_o = 1'b1;                 // private predictors start from reset
          icnt_d = '0;
          bcnt_d = '0;
          if (accept_i) begin
            state_d = ST_RUN;
            pcc_d   = cycle_i;
            pta_d   = msg_target;
            lose    = shared_drop_i;         // a higher core dropped: lost right after
          end else begin                     // dropped or suppressed: lost from the start
            lose      = 1'b1;
            lose_drop = 1'b1;
          end
        end
      end
      ST_RUN: begin
        if (suppressed_i) begin              // a lower core dropped: lost before this group
          lose        = 1'b1;
          lose_before = 1'b1;
        end else if (offer_raw && accept_i) begin
          if (ctrl_raw) begin
            icnt_d = '0;
            bcnt_d = '0;
            pcc_d  = cycle_i;
            pta_d  = msg_target;
            if (is_exit) state_d = ST_DONE;
          end else begin                     // a DATA message alone: counting goes on
            icnt_d = icnt_new;
            bcnt_d = bcnt_new;
          end
        end else if (offer_raw && drop_i) begin     // the whole bundle
          lose        = 1'b1;
          lose_before = 1'b1;
          lose_drop   = 1'b1;
          pr_clear_o  = 1'b1;
        end else begin
          icnt_d = icnt_new;
          bcnt_d = bcnt_new;
        end
        // A higher core's drop (shared organization) makes this thread lost
        // after its group: everything it retired is in the tail.
        if (shared_drop_i && !suppressed_i && !(offer_raw && drop_i) &&
            !(ctrl_raw && accept_i && is_exit)) begin
          lose      = 1'b1;
          lose_tail = (ctrl_raw && accept_i) ? 64'd0 : icnt_new;
        end
      end
      ST_LOST: begin
        gap_d = gap_new;
        empty_d = empty_now;
        if (pend_new != PEND_NONE && pend_q == PEND_NONE) pend_d = pend_new;
        if (offer_o && accept_i) begin
          icnt_d = '0;
          bcnt_d = '0;
          pcc_d  = cycle_i;
          pta_d  = msg_target;
          state_d = (msg.kind == MSG_END) ? ST_DONE : ST_RUN;
          // resynchronized, then a higher core dropped: lost again, empty tail
          lose = msg.kind != MSG_END && shared_drop_i;
        end
      end
      default: ;
    endcase

    // Entering ST_LOST.  Before this group (lose_before): the tail is what
    // was counted before it and the gap is the group itself; otherwise the
    // thread is lost after what it offered: the tail is lose_tail, no gap.
    if (lose) begin
      state_d   = ST_LOST;
      tail_d    = lose_before ? icnt_q : lose_tail;
      gap_d     = lose_before ? (rv_valid_i ? n64 : 64'd0) + {63'd0, is_branch} + {63'd0, is_exc} : 64'd0;
      dropped_d = lose_drop;
      pend_d    = lose_before ? pend_new : PEND_NONE;
      empty_d   = lose_before && grp_empty;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= ST_IDLE;
      icnt_q    <= '0;
      bcnt_q    <= '0;
      gap_q     <= '0;
      tail_q    <= '0;
      pta_q     <= '0;
      pcc_q     <= '0;
      npc_q     <= '0;
      dropped_q <= 1'b0;
      empty_q   <= 1'b0;
      pend_q    <= PEND_NONE;
    end else begin
      state_q   <= state_d;
      icnt_q    <= icnt_d;
      bcnt_q    <= bcnt_d;
      gap_q     <= gap_d;
      tail_q    <= tail_d;
      pta_q     <= pta_d;
      pcc_q     <= pcc_d;
      npc_q     <= npc_d;
      dropped_q <= dropped_d;
      empty_q   <= empty_d;
      pend_q    <= pend_d;
    end
  end

  // A resynchronization only from LOST, a DATA message only in RUN and of
  // an operand of 1 .. 64 bytes; an offer is its DATA message (if any) then
  // its control message (if any): its length is the sum of theirs and at
  // most MAXW.
  `TM_ASSERT(CoreResyncOnlyLost, !offer_resync_o || state_q == ST_LOST)
  `TM_ASSERT(CoreDataOnlyRun, !offer_data_o || state_q == ST_RUN)
  `TM_ASSERT(CoreDataSize, !data_raw || (mem_size_i >= 7'd1 && mem_size_i <= 7'd64))
  `TM_ASSERT(CoreOfferLen, !offer_o || (32'(offer_len_o) <= MAXW && offer_len_o ==
                           (offer_data_o ? offer_dlen_o : '0) + (offer_ctrl_o ? offer_clen_o : '0)))

endmodule
