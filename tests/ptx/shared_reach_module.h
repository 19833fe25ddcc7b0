// A module for the rule of which shared arrays a kernel uses (SharedUse in
// core/src/ptx/statements.h), read by the statement layer's test and by the
// instrumenter's. k1 names a and calls f, which names b; k1 declares d of its
// own; g names c, but nobody calls g. In declaration order k1 uses a, b, d
// (not c); k2 names none and calls none.
#pragma once

inline constexpr const char* kSharedReachModule = R"(.version 9.0
.target sm_90
.address_size 64
.shared .align 4 .b8 a[16];
.shared .align 4 .b8 b[16];
.extern .shared .align 4 .b8 c[];
.func f()
{
	.reg .b32 %r<2>;
	mov.u32 %r1, b;
	ret;
}
.func g()
{
	.reg .b32 %r<2>;
	mov.u32 %r1, c;
	ret;
}
.entry k1()
{
	.reg .b32 %r<2>;
	.shared .align 8 .b8 d[8];
	mov.u32 %r1, a;
	call.uni f, ();
	ret;
}
.entry k2()
{
	ret;
}
)";
