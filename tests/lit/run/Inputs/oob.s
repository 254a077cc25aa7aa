# One thread per word of p; the block is larger than the buffer, so the
# threads past its end fault.
.kernel oob
.param p ptr
    ld.param.u32 r1, [r0 + @p]
    s2r r2, %tid.x
    shli r2, r2, 2
    add r1, r1, r2
    ld.global.u32 r3, [r1 + 0]
    exit
