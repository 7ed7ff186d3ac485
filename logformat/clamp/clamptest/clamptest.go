// Package clamptest holds inputs at the edges of what the clamp changes,
// for the tests of the clamp and of the readers that clamp.
package clamptest

import (
	"math/rand/v2"
	"strings"
)

// Tricky are lines the clamp changes, or nearly does, at a string limit of
// 8 or 64 and a bare-token limit of 5.
var Tricky = []string{
	`123456`, `12345`, `[""," ",NaN,""]`, `[""," ","\ud83d",""]`, `["","1234567","123456789",""]`, `["1","2","3","4"]`,
	`["12345"]`, `["123456789"]`, `[12345]`, `[123456]`, `{"a":"x","b":12345,"c":"y"}`, `[NaN,1]`, `[-Infinity]`, `["NaN"]`,
	`["\ud83d\ude00"]`, `["\ud83d"]`, `["x\ude00"]`, `["\uD83D"]`, `["a\"b\\c"]`, `["ab\u00e9cd"]`, `["日本語日本語"]`,
	`{"k":"` + "\x00" + `"}`, "NaN\xde00", "[Infinity\xe6\x97]", `[1, 2, 3, 4, 5, 6]`, `"open`, `[true,false,null]`, ` `, ``, `["\`, `[1234,"a",123456789,"b"]`,
}

// Pieces are fragments of JSON string text, escaped and not: lone
// surrogate escapes, which JavaScript writes, and pairs.
var Pieces = []string{"a", "é", "日本", "😀", `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `\u0041`, " ", "z",
	`\ud83d`, `\uDE00`, `\uD83D\uDE00`, `\udbff\udfff`}

// RandString is string text of up to 30 pieces.
func RandString(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.IntN(30); n > 0; n-- {
		b.WriteString(Pieces[rng.IntN(len(Pieces))])
	}
	return b.String()
}
