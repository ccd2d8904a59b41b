// Operations across a warp: the invocations (fragments) a GPU runs together, a subgroup.
// Compiled in after common.glsl for kernels that give each warp its own work
// (Kernel::warps), with WARP_SUBGROUP (GL_KHR_shader_subgroup) or WARP_BALLOT
// (GL_ARB_shader_ballot) defined by the prelude. Each operation is over the invocations
// active where it is called: a warp may hold fewer than its size (a rasteriser packs quads
// into warps as it likes), and inside a loop some may have left. Which fragments share a
// warp is not known in advance; the kernels ask for work per warp instead (one atomic add
// by the leader) and split it among the warp's lanes by their rank.
//
//   warp_count():        how many invocations are active
//   warp_rank():         this one's rank among them (0 .. count - 1)
//   warp_leader():       whether this is the active one of rank 0
//   warp_from_leader(v): v of the leader, in every active invocation
//   warp_sum(v):         the sum of v over the active invocations, in each (in one order for
//                        one set of active lanes: the same lanes give the same bits)
//   warp_publish():      this invocation's storage-buffer writes made visible before any
//                        later atomic of the warp (the leader's, which announces them)

#if defined(WARP_SUBGROUP)

uint warp_count() {
    return subgroupBallotBitCount(subgroupBallot(true));
}

uint warp_rank() {
    return subgroupBallotExclusiveBitCount(subgroupBallot(true));
}

bool warp_leader() {
    return subgroupElect();
}

uint warp_from_leader(uint v) {
    return subgroupBroadcastFirst(v);
}

float warp_sum(float v) {
    return subgroupAdd(v);
}

void warp_publish() {
    memoryBarrierBuffer();
    subgroupMemoryBarrierBuffer();
    subgroupBarrier();
}

#elif defined(WARP_BALLOT)

// The active invocations as a mask (low word: lanes 0-31).
uvec2 warp_mask() {
    return unpackUint2x32(ballotARB(true));
}

uint warp_count() {
    uvec2 m = warp_mask();
    return uint(bitCount(m.x) + bitCount(m.y));
}

uint warp_rank() {
    uvec2 m = warp_mask() & unpackUint2x32(gl_SubGroupLtMaskARB);
    return uint(bitCount(m.x) + bitCount(m.y));
}

bool warp_leader() {
    return warp_rank() == 0u;
}

uint warp_from_leader(uint v) {
    return readFirstInvocationARB(v);
}

// Lane by lane, in lane order: readInvocationARB needs the same lane in every invocation,
// which the loop gives.
float warp_sum(float v) {
    uvec2 m = warp_mask();
    float s = 0.0;
    for (uint l = 0u; l < gl_SubGroupSizeARB; ++l) {
        uint w = l < 32u ? m.x : m.y;
        if (((w >> (l & 31u)) & 1u) != 0u) {
            s += readInvocationARB(v, l);
        }
    }
    return s;
}

// The extension has no warp barrier: its warps run each instruction together (a software
// rasteriser's warp is one vector of one thread), so the writes come before the atomic.
void warp_publish() {
    memoryBarrierBuffer();
}

#endif
