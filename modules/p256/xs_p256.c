/*
 * The elliptic-curve hotspot: k1*P1 + k2*P2 on a short Weierstrass curve over a prime field,
 * the one costly step of an ECDSA verification (src/ota/verify.ts checks update signatures on
 * P-256 with it). The arithmetic is the Moddable SDK's own C ($(MODDABLE)/modules/crypt/arith:
 * xsBigIntEx.c, Montgomery multiplication over XS's BigInt, the code the SDK's TLS and its ecdsa
 * module run on the device), so this file is only the binding, the same as the SDK's
 * xs_ec2_mul2 (modules/crypt/arith/ec.c) without the generated property ids of an mcconfig
 * build:
 *
 *   __native.ecMul2(m, a, b, x1, y1, k1, x2, y2, k2)
 *       the curve y^2 = x^3 + a*x + b (mod m), two affine points and two scalars, all BigInts;
 *       returns { x, y, z } of k1*P1 + k2*P2, normalised: z is 1n, or 0n for the point at
 *       infinity.
 *
 * Only public values pass through here (a signature check), so the SDK's plain double-and-add
 * (not constant time) is fine. Built only when the SDK's arithmetic is there (the simulator's
 * Makefile defines DESK_SIM, and DESK_HAVE_ARITH when it builds on the SDK's XS; the device links
 * crypt/arith with the SDK's TLS); without it natives.c's weak default installs nothing and the
 * firmware verifies with @noble/curves.
 */
#include "xs.h"

#if !defined(DESK_SIM) || defined(DESK_HAVE_ARITH)

#include "xsmc.h"
#include "xsBigIntEx.h"

extern void fxBigInt_ec_mul2(xsMachine *the, txECPoint *r, txECPoint *a1, txBigInt *k1, txECPoint *a2, txBigInt *k2, txECParam *ec);
extern void fxBigInt_ec_norm(xsMachine *the, txECPoint *r, txECPoint *a, txECParam *ec);
extern txU4 mont_init(txBigInt *m);
extern txBigInt *mont_in(xsMachine *the, txBigInt *r, txBigInt *a, txBigInt *m);
extern txBigInt *mont_out(xsMachine *the, txBigInt *r, txBigInt *a, txBigInt *m, txU4 u);
extern txBigInt gxBigIntOne;

/* The temporaries mont_in and the curve code allocate live on the XS stack until the call
 * returns (fxBigInt_alloc pushes them), as in the SDK's ec.c; the pointers held here point at
 * stack or argument slots, which a collection may not move. */
void xs_p256_mul2(xsMachine *the)
{
	txECParam ec;
	txECPoint r, p1, p2;
	txBigInt *k1, *k2;
	int i;

	if (xsmcArgc != 9)
		xsRangeError("ecMul2 takes 9 BigInts");
	for (i = 0; i < 9; i++) {
		if (xsmcTypeOf(xsArg(i)) != xsBigIntType)
			xsTypeError("ecMul2 takes BigInts");
	}
	xsmcVars(3);
	ec.m = xsmcToBigInt(xsArg(0));
	ec.u = mont_init(ec.m);
	ec.a = mont_in(the, NULL, xsmcToBigInt(xsArg(1)), ec.m);
	ec.b = mont_in(the, NULL, xsmcToBigInt(xsArg(2)), ec.m);
	ec.one = mont_in(the, NULL, &gxBigIntOne, ec.m);
	p1.x = mont_in(the, NULL, xsmcToBigInt(xsArg(3)), ec.m);
	p1.y = mont_in(the, NULL, xsmcToBigInt(xsArg(4)), ec.m);
	p1.z = ec.one;
	k1 = xsmcToBigInt(xsArg(5));
	p2.x = mont_in(the, NULL, xsmcToBigInt(xsArg(6)), ec.m);
	p2.y = mont_in(the, NULL, xsmcToBigInt(xsArg(7)), ec.m);
	p2.z = ec.one;
	k2 = xsmcToBigInt(xsArg(8));
	r.x = r.y = r.z = NULL;
	fxBigInt_ec_mul2(the, &r, &p1, k1, &p2, k2, &ec);
	fxBigInt_ec_norm(the, &r, &r, &ec);
	mont_out(the, r.x, r.x, ec.m, ec.u);
	mont_out(the, r.y, r.y, ec.m, ec.u);
	mont_out(the, r.z, r.z, ec.m, ec.u);
	xsmcSetBigInt(xsVar(0), r.x);
	xsmcSetBigInt(xsVar(1), r.y);
	xsmcSetBigInt(xsVar(2), r.z);
	xsmcSetNewObject(xsResult);
	xsmcSet(xsResult, xsID("x"), xsVar(0));
	xsmcSet(xsResult, xsID("y"), xsVar(1));
	xsmcSet(xsResult, xsID("z"), xsVar(2));
}

/* __native.ecMul2 = host function, with the stack primitives of xs.h (as xs_sha256.c). */
void xs_p256_install(xsMachine *the)
{
	xsSlot *native;
	xsIdentifier id = xsID("ecMul2");
	fxPush(xsGlobal);
	fxGetID(the, xsID("__native"));
	native = the->stack;
	fxNewHostFunction(the, xs_p256_mul2, 9, id, XS_NO_ID);
	fxPush(*native);
	fxSetID(the, id);
	the->stack++;
	the->stack++;
}

#endif
