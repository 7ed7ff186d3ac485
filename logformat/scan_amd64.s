//go:build !purego

#include "textflag.h"

// func stopWindow(b []byte) (off int, stops, highs uint64, before bool)
//
// A window is two 32-byte halves; a byte of one is a stop if it equals a
// quote or a backslash, or is below 0x20: VPMINUB with 0x1f leaves exactly
// those as they are. VPMOVMSKB makes each half's 32 bits of a mask, of the
// stops and of the bytes from 0x80 (their high bits); Y15 gathers the
// bytes of the windows passed over, for before.
TEXT ·stopWindow(SB), NOSPLIT, $0-49
	MOVQ   b_base+0(FP), SI
	MOVQ   b_len+8(FP), CX
	XORQ   AX, AX
	VPXOR  Y15, Y15, Y15
	SUBQ   $64, CX // the last window starts at len-64
	JLT    none
	MOVQ   $0x2222222222222222, DX
	MOVQ   DX, X1
	VPBROADCASTQ X1, Y1
	MOVQ   $0x5c5c5c5c5c5c5c5c, DX
	MOVQ   DX, X2
	VPBROADCASTQ X2, Y2
	MOVQ   $0x1f1f1f1f1f1f1f1f, DX
	MOVQ   DX, X3
	VPBROADCASTQ X3, Y3

loop:
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y7
	VPCMPEQB  Y0, Y1, Y4
	VPCMPEQB  Y0, Y2, Y5
	VPMINUB   Y0, Y3, Y6
	VPCMPEQB  Y0, Y6, Y6
	VPOR      Y4, Y5, Y4
	VPOR      Y4, Y6, Y4
	VPCMPEQB  Y7, Y1, Y8
	VPCMPEQB  Y7, Y2, Y9
	VPMINUB   Y7, Y3, Y10
	VPCMPEQB  Y7, Y10, Y10
	VPOR      Y8, Y9, Y8
	VPOR      Y8, Y10, Y8
	VPMOVMSKB Y4, BX
	VPMOVMSKB Y8, DX
	SHLQ      $32, DX
	ORQ       DX, BX
	JNZ       found
	VPOR      Y0, Y15, Y15
	VPOR      Y7, Y15, Y15
	ADDQ      $64, AX
	CMPQ      AX, CX
	JLE       loop

none:
	VPMOVMSKB Y15, DX
	VZEROUPPER
	MOVQ AX, off+24(FP)
	MOVQ $0, stops+32(FP)
	MOVQ $0, highs+40(FP)
	TESTL DX, DX
	SETNE before+48(FP)
	RET

found:
	MOVQ      BX, stops+32(FP)
	VPMOVMSKB Y0, BX
	VPMOVMSKB Y7, DX
	SHLQ      $32, DX
	ORQ       DX, BX
	MOVQ      BX, highs+40(FP)
	VPMOVMSKB Y15, DX
	VZEROUPPER
	MOVQ AX, off+24(FP)
	TESTL DX, DX
	SETNE before+48(FP)
	RET
