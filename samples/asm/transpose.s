# transpose.s - out = transpose(in) for a rows x cols fp32 matrix (row-major),
# through a shared-memory tile, with 2D blocks and a 2D grid.
#
# Block (bx, by) = (ctaid.x, ctaid.y) owns the T x T tile whose top-left
# element is in[by*T][bx*T], T = ntid.x = ntid.y (16: a block is 256 threads,
# 8 warps of two tile rows each; the host picks 8 or 4 where a configuration
# allows fewer threads per block). Thread (tx, ty) = (tid.x, tid.y):
#   load:  tile[ty][tx] = in[by*T + ty][bx*T + tx]   if inside the matrix
#   bar
#   store: out[bx*T + ty][by*T + tx] = tile[tx][ty]  if inside out
#          (out is cols x rows)
# Both global accesses run along rows (consecutive tx, consecutive
# addresses); the transposition happens in shared memory, where the tile's
# rows are T + 1 words long so that a column walk does not hit one bank.
# rows and cols need not be multiples of T: the edge tiles mask lanes off.
#
# Requires T <= 16 (.shared 1088 = 16 * 17 * 4 bytes).
# Parameters: in, out (ptr), rows, cols (u32).
# Registers:
#   r1 tx   r2 ty   r3 T   r4 bx*T   r5 by*T   r6 rows   r7 cols
#   r8 row   r9 column   r10 exec mask on entry   r11, r12 conditions
#   r13 linear index / address   r14 value   r15 tile row stride in bytes
#   r16 shared address   r17 scratch

.kernel transpose
.param in ptr
.param out ptr
.param rows u32
.param cols u32
.shared 1088
    emask.get r10
    s2r r1, %tid.x
    s2r r2, %tid.y
    s2r r3, %ntid.x
    s2r r4, %ctaid.x
    mul r4, r4, r3              # bx * T
    s2r r5, %ctaid.y
    mul r5, r5, r3              # by * T
    ld.param.u32 r6, [r0 + @rows]
    ld.param.u32 r7, [r0 + @cols]
    addi r15, r3, 1
    shli r15, r15, 2            # (T + 1) * 4

    # Load in[by*T + ty][bx*T + tx] into tile[ty][tx].
    add r8, r5, r2
    add r9, r4, r1
    setltu r11, r8, r6
    setltu r12, r9, r7
    and r11, r11, r12
    emask.and r11
    bnone loaded
    mul r13, r8, r7
    add r13, r13, r9
    shli r13, r13, 2
    ld.param.u32 r17, [r0 + @in]
    add r13, r13, r17
    ld.global.u32 r14, [r13]
    mul r16, r2, r15
    shli r17, r1, 2
    add r16, r16, r17
    st.shared.u32 [r16], r14
loaded:
    emask.set r10
    bar

    # Store tile[tx][ty] to out[bx*T + ty][by*T + tx]; out has `rows` columns.
    add r8, r4, r2
    add r9, r5, r1
    setltu r11, r8, r7
    setltu r12, r9, r6
    and r11, r11, r12
    emask.and r11
    bnone done
    mul r16, r1, r15
    shli r17, r2, 2
    add r16, r16, r17
    ld.shared.u32 r14, [r16]
    mul r13, r8, r6
    add r13, r13, r9
    shli r13, r13, 2
    ld.param.u32 r17, [r0 + @out]
    add r13, r13, r17
    st.global.u32 [r13], r14
done:
    emask.set r10
    exit
