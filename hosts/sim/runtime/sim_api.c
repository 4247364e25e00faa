/*
 * sim_api.c: the __sim global, the firmware's way to the board (docs/sim-protocol.md).
 *
 * Owns the host functions call, send, setTimer, clearTimer, monoMs, wallMs, heap,
 * resetPeak, resetStackPeak, gc, print, exit, and the properties onEvent (set by the firmware, read by
 * the loop for each event) and argv. Binary arguments may be an ArrayBuffer or any
 * TypedArray or DataView (its bytes between byteOffset and byteOffset + byteLength);
 * binaries returned are ArrayBuffers, or undefined when the payload is empty.
 */
#include "sim.h"

/* The bytes of an ArrayBuffer, TypedArray or DataView; 0 for undefined or null.
   The pointer is valid until the next XS allocation. */
static int getBinary(txMachine* the, txSlot* slot, const void** data, uint32_t* length, const char* who)
{
	*data = NULL;
	*length = 0;
	if ((slot->kind == XS_UNDEFINED_KIND) || (slot->kind == XS_NULL_KIND))
		return 0;
	if (slot->kind == XS_REFERENCE_KIND) {
		txSlot* internal = slot->value.reference->next;
		if (internal && (internal->flag & XS_INTERNAL_FLAG)) {
			txSlot* view = C_NULL;
			if (internal->kind == XS_ARRAY_BUFFER_KIND) {
				if (internal->value.arrayBuffer.address == C_NULL)
					mxTypeError("%s: detached buffer", who);
				*data = internal->value.arrayBuffer.address;
				*length = (uint32_t)internal->next->value.bufferInfo.length;
				return 1;
			}
			if (internal->kind == XS_TYPED_ARRAY_KIND)
				view = internal->next;
			else if (internal->kind == XS_DATA_VIEW_KIND)
				view = internal;
			if (view) {
				txSlot* buffer = view->next;
				txSlot* arrayBuffer = buffer->value.reference->next;
				txInteger size;
				if (arrayBuffer->value.arrayBuffer.address == C_NULL)
					mxTypeError("%s: detached buffer", who);
				size = fxGetDataViewSize(the, view, buffer);
				*data = arrayBuffer->value.arrayBuffer.address + view->value.dataView.offset;
				*length = (uint32_t)size;
				return 1;
			}
		}
	}
	mxTypeError("%s: binary must be an ArrayBuffer, a TypedArray or a DataView", who);
	return 0;
}

static const char* getJson(txMachine* the, uint32_t* length, const char* who)
{
	txSlot* slot = mxArgv(0);
	size_t size;
	if ((mxArgc < 1) || ((slot->kind != XS_STRING_KIND) && (slot->kind != XS_STRING_X_KIND)))
		mxTypeError("%s: json must be a string", who);
	size = strlen(slot->value.string);
	if (size > SIM_MAX_FRAME)
		mxRangeError("%s: json too long", who);
	*length = (uint32_t)size;
	return slot->value.string;
}

static void checkPipe(txMachine* the, const char* who)
{
	if (simPipeFd() < 0)
		mxUnknownError("%s: no pipe (the runtime runs --standalone)", who);
}

static void xs_sim_call(txMachine* the)
{
	const char* json;
	const void* bin;
	uint32_t jsonLength, binLength;
	SimReply reply;
	checkPipe(the, "__sim.call");
	json = getJson(the, &jsonLength, "__sim.call");
	if (mxArgc > 1)
		getBinary(the, mxArgv(1), &bin, &binLength, "__sim.call");
	else {
		bin = NULL;
		binLength = 0;
	}
	if ((uint64_t)jsonLength + binLength + 9 > SIM_MAX_FRAME)
		mxRangeError("__sim.call: frame too large");
	/* no XS allocation from here until the reply's values are made */
	simPipeCall(json, jsonLength, bin, binLength, &reply);
	mxPush(mxArrayPrototype);
	fxNewArrayInstance(the);
	mxPullSlot(mxResult);
	mxPushUndefined();
	fxStringBuffer(the, the->stack, (txString)reply.json, (txSize)reply.jsonLength);
	mxPushSlot(mxResult);
	mxSetIndex(0);
	mxPop();
	mxPushUndefined();
	if (reply.binLength)
		fxArrayBuffer(the, the->stack, (void*)reply.bin, (txInteger)reply.binLength, -1);
	mxPushSlot(mxResult);
	mxSetIndex(1);
	mxPop();
}

static void xs_sim_send(txMachine* the)
{
	const char* json;
	const void* bin;
	uint32_t jsonLength, binLength;
	checkPipe(the, "__sim.send");
	json = getJson(the, &jsonLength, "__sim.send");
	if (mxArgc > 1)
		getBinary(the, mxArgv(1), &bin, &binLength, "__sim.send");
	else {
		bin = NULL;
		binLength = 0;
	}
	if ((uint64_t)jsonLength + binLength + 9 > SIM_MAX_FRAME)
		mxRangeError("__sim.send: frame too large");
	simPipeWrite(SIM_FRAME_SEND, simPipeNextId(), json, jsonLength, bin, binLength);
}

static void xs_sim_setTimer(txMachine* the)
{
	txNumber ms;
	txBoolean repeat;
	if ((mxArgc < 3) || !mxIsReference(mxArgv(2)) || !mxIsFunction(mxArgv(2)->value.reference))
		mxTypeError("__sim.setTimer: fn must be a function");
	ms = fxToNumber(the, mxArgv(0));
	repeat = fxToBoolean(the, mxArgv(1));
	mxResult->kind = XS_NUMBER_KIND;
	mxResult->value.number = simSetTimer(the, ms, repeat, mxArgv(2));
}

static void xs_sim_clearTimer(txMachine* the)
{
	if (mxArgc > 0)
		simClearTimer(the, fxToNumber(the, mxArgv(0)));
}

static void xs_sim_monoMs(txMachine* the)
{
	mxResult->kind = XS_NUMBER_KIND;
	mxResult->value.number = simMonoMs();
}

static void xs_sim_wallMs(txMachine* the)
{
	mxResult->kind = XS_NUMBER_KIND;
	mxResult->value.number = simWallMs();
}

static void setNumber(txMachine* the, txSlot* object, const char* name, double value)
{
	mxPushNumber(value);
	mxPushSlot(object);
	mxSetID(fxID(the, (txString)name));
	mxPop();
}

/* The XS stack's high-water: XS keeps it in the->stackPeak when built with
   mxInstrument (the Makefile does), lowering it as each function returns.
   The stack grows down from stackTop. */
void simStackResetPeak(txMachine* the)
{
	the->stackPeak = the->stack;
}

static void xs_sim_heap(txMachine* the)
{
	double chunks = (double)the->currentChunksSize;
	double slots = (double)the->currentHeapCount * (double)sizeof(txSlot);
	double peak = (double)the->peakChunksSize + ((double)the->peakHeapCount * (double)sizeof(txSlot));
	mxPush(mxObjectPrototype);
	fxNewObjectInstance(the);
	mxPullSlot(mxResult);
	setNumber(the, mxResult, "now", chunks + slots);
	setNumber(the, mxResult, "peak", peak);
	setNumber(the, mxResult, "chunks", chunks);
	setNumber(the, mxResult, "slots", slots);
	setNumber(the, mxResult, "limit", (double)gSimHeapMax);
	setNumber(the, mxResult, "reserved", (double)gSimHeapReserved);
	setNumber(the, mxResult, "keys", (double)the->keyIndex);
	setNumber(the, mxResult, "stack", (double)(the->stackTop - the->stack));
	setNumber(the, mxResult, "stackPeak", (double)(the->stackTop - (the->stackPeak < the->stack ? the->stackPeak : the->stack)));
	setNumber(the, mxResult, "stackSize", (double)(the->stackTop - the->stackBottom));
}

static void xs_sim_resetPeak(txMachine* the)
{
	the->peakChunksSize = the->currentChunksSize;
	the->peakHeapCount = the->currentHeapCount;
	simStackResetPeak(the);
}

static void xs_sim_resetStackPeak(txMachine* the)
{
	simStackResetPeak(the);
}

static void xs_sim_gc(txMachine* the)
{
	fxCollectGarbage(the);
}

static void xs_sim_print(txMachine* the)
{
	if (mxArgc > 0) {
		fxToString(the, mxArgv(0));
		simOutWrite(mxArgv(0)->value.string, strlen(mxArgv(0)->value.string));
	}
	simOutWrite("\n", 1);
}

static void xs_sim_exit(txMachine* the)
{
	txInteger code = (mxArgc > 0) ? fxToInteger(the, mxArgv(0)) : 0;
	simExit(code & 0xFF);
}

static void defineFunction(txMachine* the, txSlot* object, const char* name, txCallback callback, txInteger length)
{
	txID id = fxID(the, (txString)name);
	fxNewHostFunction(the, callback, length, id, XS_NO_ID);
	mxPushSlot(object);
	mxDefineID(id, XS_DONT_ENUM_FLAG, XS_GET_ONLY);
	mxPop();
}

void simInstallSim(txMachine* the, int argc, char** argv)
{
	txSlot* sim;
	txSlot* array;
	int i;
	mxPush(mxObjectPrototype);
	fxNewObjectInstance(the);
	sim = the->stack;
	defineFunction(the, sim, "call", xs_sim_call, 2);
	defineFunction(the, sim, "send", xs_sim_send, 2);
	defineFunction(the, sim, "setTimer", xs_sim_setTimer, 3);
	defineFunction(the, sim, "clearTimer", xs_sim_clearTimer, 1);
	defineFunction(the, sim, "monoMs", xs_sim_monoMs, 0);
	defineFunction(the, sim, "wallMs", xs_sim_wallMs, 0);
	defineFunction(the, sim, "heap", xs_sim_heap, 0);
	defineFunction(the, sim, "resetPeak", xs_sim_resetPeak, 0);
	defineFunction(the, sim, "resetStackPeak", xs_sim_resetStackPeak, 0);
	defineFunction(the, sim, "gc", xs_sim_gc, 0);
	defineFunction(the, sim, "print", xs_sim_print, 1);
	defineFunction(the, sim, "exit", xs_sim_exit, 1);

	mxPushUndefined();
	mxPushSlot(sim);
	mxSetID(fxID(the, "onEvent"));
	mxPop();

	mxPush(mxArrayPrototype);
	fxNewArrayInstance(the);
	array = the->stack;
	for (i = 0; i < argc; i++) {
		mxPushStringC(argv[i]);
		mxPushSlot(array);
		mxSetIndex(i);
		mxPop();
	}
	mxPushSlot(sim);
	mxDefineID(fxID(the, "argv"), XS_DONT_ENUM_FLAG, XS_GET_ONLY);
	mxPop();

	mxPushSlot(sim);
	mxPush(mxGlobal);
	mxDefineID(fxID(the, "__sim"), XS_DONT_ENUM_FLAG, XS_GET_ONLY);
	mxPop();
	mxPop();
}
