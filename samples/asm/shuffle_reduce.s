# shuffle_reduce.s - per-warp sum, maximum and positive count of s32 values
# with shuffles and a vote, without shared memory.
#
# Warp w (global: w = i / 32 for thread i = ctaid.x * ntid.x + tid.x; ntid.x
# is a multiple of 32) covers in[32w .. 32w + 31]. Lanes past n hold x = 0,
# not an inactive lane, because a shuffle that reads an inactive lane gets
# the reader's own value, which would count it twice.
#   sum: shfl.down by 16, 8, 4, 2, 1 and add; lane 0 ends with the total
#        (lanes above it add garbage they never use). Wraps at 32 bits.
#   max: shfl.xor butterfly by 16, 8, 4, 2, 1 and max; every lane ends with
#        the maximum (lanes past n contribute 0, so max >= 0 - the host
#        reference does the same).
#   positives: vote.ballot of (x > 0) gives one bit per lane; popc counts.
# Lane 0 of each warp whose first element is below n writes sums[w],
# maxes[w] and positives[w].
#
# Parameters: in, sums, maxes, positives (ptr), n (u32).
# Registers:
#   r1 tid.x   r2 ctaid.x   r3 ntid.x   r4 i   r5 n   r6 in-bounds flag
#   r7 exec mask on entry   r8 address   r9 x   r10 running sum
#   r11 running max   r12 shuffle distance   r13 shuffled value
#   r14 x > 0   r15 ballot   r16 popcount   r17 lane id   r18 condition
#   r19 warp index w   r20 byte offset 4*w

.kernel warp_reduce
.param in ptr
.param sums ptr
.param maxes ptr
.param positives ptr
.param n u32
    emask.get r7
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    s2r r3, %ntid.x
    mul r4, r2, r3
    add r4, r4, r1
    ld.param.u32 r5, [r0 + @n]
    setltu r6, r4, r5
    movi r9, 0                  # x = 0 unless loaded
    emask.and r6
    bnone loaded
    shli r8, r4, 2
    ld.param.u32 r13, [r0 + @in]
    add r8, r8, r13
    ld.global.u32 r9, [r8]
loaded:
    emask.set r7                # every lane takes part in the shuffles

    setgti r14, r9, 0
    vote.ballot r15, r14
    popc r16, r15

    mov r10, r9
    mov r11, r9
    movi r12, 16
butterfly:
    shfl.down r13, r10, r12
    add r10, r10, r13
    shfl.xor r13, r11, r12
    max r11, r11, r13
    shri r12, r12, 1
    bnz r12, butterfly          # the distance is the same in every lane

    s2r r17, %laneid
    seteqi r18, r17, 0
    and r18, r18, r6            # lane 0 of a warp that starts below n
    emask.and r18
    bnone done
    shri r19, r4, 5
    shli r20, r19, 2
    ld.param.u32 r8, [r0 + @sums]
    add r8, r8, r20
    st.global.u32 [r8], r10
    ld.param.u32 r8, [r0 + @maxes]
    add r8, r8, r20
    st.global.u32 [r8], r11
    ld.param.u32 r8, [r0 + @positives]
    add r8, r8, r20
    st.global.u32 [r8], r16
done:
    emask.set r7
    exit
