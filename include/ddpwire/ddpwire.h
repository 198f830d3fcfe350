/* SPDX-License-Identifier: MIT */
/*
 * ddpwire: wire protocols for direct data placement over IP networks.
 * The umbrella header: includes every public header of the library.
 *
 *   common.h       export macro, version, error codes
 *   crc32c.h       CRC32c (portable and x86 fast paths)
 *   mpa.h          MPA sender and in-order receiver
 *   mpa_seg.h      MPA segment receiver (out-of-order placement)
 *   mpa_startup.h  MPA start-up frames and negotiation (RFC 5044, 6581)
 *   ift.h          IFT framing: codec, sender, receiver
 *   framing.h      one interface over MPA or IFT (the socket adapter's)
 *   outq.h         an output queue of frames (the adapter's non-blocking sends)
 *   conn.h         one MPA/IFT connection, sans-I/O: start-up, framing, receiving
 *   ddp.h, rdmap.h DDP and RDMAP codecs
 *   qp.h           a sans-I/O queue pair (Send, Write, Read, Terminate)
 *   tcpopt.h       the TCP RDMA option (kind 25)
 *   ipoib.h        IPoIB capability codecs and rules
 *   ipoib_node.h   a sans-I/O IPoIB interface
 *   pkt.h, reasm.h captured packets parsed, TCP reassembled per direction
 *   flowtab.h      the connections of a capture
 *   mpa_check.h, ift_check.h   stream checkers for captures
 *   dissect.h      captured packets in, per-connection events out
 *   netsim.h, ipoib_sim.h      simulators (test equipment)
 *   mpa_sock.h     the socket adapter (the only part that does I/O)
 */
#ifndef DDPWIRE_DDPWIRE_H
#define DDPWIRE_DDPWIRE_H

#include <ddpwire/common.h>
#include <ddpwire/mem.h>
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_seg.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/ift.h>
#include <ddpwire/framing.h>
#include <ddpwire/outq.h>
#include <ddpwire/conn.h>
#include <ddpwire/ddp.h>
#include <ddpwire/rdmap.h>
#include <ddpwire/qp.h>
#include <ddpwire/tcpopt.h>
#include <ddpwire/ipoib.h>
#include <ddpwire/ipoib_node.h>
#include <ddpwire/pkt.h>
#include <ddpwire/reasm.h>
#include <ddpwire/mpa_check.h>
#include <ddpwire/ift_check.h>
#include <ddpwire/flowtab.h>
#include <ddpwire/dissect.h>
#include <ddpwire/netsim.h>
#include <ddpwire/ipoib_sim.h>
#include <ddpwire/mpa_sock.h>

#endif /* DDPWIRE_DDPWIRE_H */
