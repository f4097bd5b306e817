#include "drivers/verbs/verbs_qp_attr.hpp"

#include <algorithm>

namespace evb::verbs {

QpTransition init_transition(const LocalPort& local) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_INIT;
  t.attr.pkey_index = 0;
  t.attr.port_num = local.port;
  t.attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  t.mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
  return t;
}

QpTransition rtr_transition(const LocalPort& local, const VerbsAddress& peer,
                            const QpEndpoint& remote) {
  QpTransition t;
  if (remote.qpn == 0 || remote.qpn > kMax24 || remote.psn > kMax24) {
    t.error = "its address has no queue pair for this rank";
    return t;
  }
  if (local.use_gid && !peer.use_gid) {
    t.error =
        "this port routes by GID (RoCE or driver_options.gid_index) but the peer published "
        "only a LID; set the same gid_index on every rank";
    return t;
  }
  if (!local.use_gid && peer.lid == 0) {
    t.error =
        "this port routes by LID but the peer has none (a RoCE port?); set "
        "driver_options.gid_index";
    return t;
  }
  t.attr.qp_state = IBV_QPS_RTR;
  t.attr.path_mtu = static_cast<ibv_mtu>(std::min(local.mtu, peer.mtu));
  t.attr.dest_qp_num = remote.qpn;
  t.attr.rq_psn = remote.psn;
  t.attr.max_dest_rd_atomic = 1;
  t.attr.min_rnr_timer = kMinRnrTimer;
  t.attr.ah_attr.dlid = peer.lid;
  t.attr.ah_attr.sl = 0;
  t.attr.ah_attr.src_path_bits = 0;
  t.attr.ah_attr.port_num = local.port;
  if (local.use_gid) {
    t.attr.ah_attr.is_global = 1;
    std::copy(peer.gid.begin(), peer.gid.end(), t.attr.ah_attr.grh.dgid.raw);
    t.attr.ah_attr.grh.sgid_index = local.gid_index;
    t.attr.ah_attr.grh.hop_limit = kHopLimit;
    t.attr.ah_attr.grh.flow_label = 0;
    t.attr.ah_attr.grh.traffic_class = 0;
  }
  t.mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  return t;
}

QpTransition rts_transition(const VerbsOptions& o, uint32_t local_psn) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_RTS;
  t.attr.sq_psn = local_psn & kMax24;
  t.attr.timeout = o.timeout;
  t.attr.retry_cnt = o.retry_count;
  t.attr.rnr_retry = o.rnr_retry;
  t.attr.max_rd_atomic = 1;
  t.mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
           IBV_QP_MAX_QP_RD_ATOMIC;
  return t;
}

}  // namespace evb::verbs
