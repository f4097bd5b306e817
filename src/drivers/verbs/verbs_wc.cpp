#include "drivers/verbs/verbs_wc.hpp"

#include <arpa/inet.h>

namespace evb::verbs {

RecvEvent classify_recv(const ibv_wc& wc, PeerId peer, size_t buffer_bytes) {
  RecvEvent e;
  const bool imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
  if (wc.status != IBV_WC_SUCCESS) return e;
  if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && imm) {
    e.kind = RecvKind::remote_write;
    e.completion.type = OpType::remote_write;
    e.completion.status = OpStatus::ok;
    e.completion.peer = peer;
    e.completion.bytes = wc.byte_len;
    e.completion.immediate = ntohl(wc.imm_data);
    return e;
  }
  if (wc.opcode == IBV_WC_RECV && !imm && wc.byte_len <= buffer_bytes) {
    e.kind = RecvKind::message;
    e.bytes = wc.byte_len;
  }
  return e;
}

}  // namespace evb::verbs
