# reduce.s - block sum reduction of u32 through shared memory and barriers.
#
# out[ctaid.x] = sum (mod 2^32) of the elements in[j] that this block's
# threads visit; the host adds the per-block partial sums. u32 addition is
# associative, so the result is exact whatever the order and the host
# compares bit for bit.
#
# Phase 1 (grid-stride loop): thread t of block b sums in[i] for
# i = b * ntid.x + t, then i += ntid.x * nctaid.x, while i < n. Lanes leave
# the loop at different trip counts: each round, emask.and drops the lanes
# whose i >= n, and bnone leaves when none is left.
# Phase 2 (tree): every thread stores its sum to s[t] (shared), then for
# h = ntid.x / 2, ntid.x / 4, ..., 1: threads t < h add s[t + h] into s[t].
# The loop over h is uniform (bz on h); the `t < h` test is divergent and uses
# the exec mask. Each step ends with bar, executed with the full mask, so no
# thread reads s[t + h] before its writer has stored it.
# Thread 0 writes s[0] to out[ctaid.x].
#
# Requires ntid.x a power of two and at most 256 (.shared 1024 = 256 words).
# Parameters: in, out (ptr), n (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 nctaid.x   r5 i   r6 stride
#   r7 n       r8 &in[0]    r9 running sum   r10 exec mask on entry
#   r11 condition   r12 address   r13 loaded value   r14 shared &s[t]
#   r15 h      r16 &s[t + h]   r17 s[t + h]   r18 s[t]   r19 &out[ctaid.x]

.kernel reduce_u32
.param in ptr
.param out ptr
.param n u32
.shared 1024
    emask.get r10
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    s2r r4, %nctaid.x
    mul r5, r2, r3
    add r5, r5, r1              # i = ctaid.x * ntid.x + tid.x
    mul r6, r3, r4              # stride = threads in the grid
    ld.param.u32 r7, [r0 + @n]
    ld.param.u32 r8, [r0 + @in]
    movi r9, 0
gather:
    setltu r11, r5, r7
    emask.and r11               # lanes past n are done
    bnone gathered
    shli r12, r5, 2
    add r12, r12, r8
    ld.global.u32 r13, [r12]
    add r9, r9, r13
    add r5, r5, r6
    bra gather
gathered:
    emask.set r10
    shli r14, r1, 2
    st.shared.u32 [r14], r9
    bar
    shri r15, r3, 1             # h = ntid.x / 2
tree:
    bz r15, tree_done           # h is the same in every lane
    setltu r11, r1, r15
    emask.and r11               # only t < h adds
    bnone tree_step
    shli r16, r15, 2
    add r16, r16, r14
    ld.shared.u32 r17, [r16]
    ld.shared.u32 r18, [r14]
    add r18, r18, r17
    st.shared.u32 [r14], r18
tree_step:
    emask.set r10               # bar with the whole block
    bar
    shri r15, r15, 1
    bra tree
tree_done:
    seteqi r11, r1, 0
    emask.and r11               # thread 0 writes the block's sum
    bnone done
    ld.shared.u32 r18, [r0]
    ld.param.u32 r19, [r0 + @out]
    shli r12, r2, 2
    add r19, r19, r12
    st.global.u32 [r19], r18
done:
    emask.set r10
    exit
