package render

import (
	"fmt"
	"strings"
	"testing"
)

func TestSplitShared(t *testing.T) {
	const prolog = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	for _, c := range []struct{ sst, head, tail string }{
		{prolog + `<sst xmlns="m" count="3" uniqueCount="2"><si><t>a</t></si><si><t>b</t></si></sst>`,
			prolog + `<sst xmlns="m" count="13" uniqueCount="6">`, `<si><t>a</t></si><si><t>b</t></si></sst>`},
		{`<sst uniqueCount="0" count="0"/>`, `<sst uniqueCount="4" count="10">`, `</sst>`},
		{`<sst xmlns="m"></sst>`, `<sst xmlns="m">`, `</sst>`}, // no counts: none made up
	} {
		head, tail, err := splitShared([]byte(c.sst), 4, 10)
		if err != nil || string(head) != c.head || string(tail) != c.tail {
			t.Errorf("splitShared(%q) = %q, %q, %v; want %q, %q", c.sst, head, tail, err, c.head, c.tail)
		}
	}
	if _, _, err := splitShared([]byte(`<worksheet/>`), 1, 1); err == nil {
		t.Error("no table, no error")
	}
}

func TestShiftShared(t *testing.T) {
	sheet := `<sheetData><row r="1"><c r="A1" s="7" t="s"><v>0</v></c><c r="B1" t="s"><v>12</v></c>` +
		`<c r="C1" s="2"><v>5</v></c><c r="D1" t="inlineStr"><is><t>t="s"&gt;&lt;v&gt;3</t></is></c><c r="E1" t="str"><f>A1</f><v>x</v></c></row></sheetData>`
	want := `<sheetData><row r="1"><c r="A1" s="7" t="s"><v>100</v></c><c r="B1" t="s"><v>112</v></c>` +
		`<c r="C1" s="2"><v>5</v></c><c r="D1" t="inlineStr"><is><t>t="s"&gt;&lt;v&gt;3</t></is></c><c r="E1" t="str"><f>A1</f><v>x</v></c></row></sheetData>`
	got, err := shiftShared([]byte(sheet), 100)
	if err != nil || string(got) != want {
		t.Errorf("shiftShared:\n got  %s\n want %s (%v)", got, want, err)
	}
}

// Names past the table's bound, in number or length, stay inline.
func TestSharedWordsBounded(t *testing.T) {
	s, err := newSharedText()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range maxSharedWords {
		if j, ok := s.word(fmt.Sprint("tool", i)); !ok || j != i {
			t.Fatalf("word %d: %d %v", i, j, ok)
		}
	}
	if j, ok := s.word("tool7"); !ok || j != 7 {
		t.Errorf("a known word again: %d %v", j, ok)
	}
	if _, ok := s.word("one more"); ok {
		t.Error("a word past the bound is shared")
	}
	s.words = map[string]int{}
	if _, ok := s.word(strings.Repeat("x", maxSharedWord+1)); ok {
		t.Error("a long word is shared")
	}
	if _, ok := s.word(strings.Repeat("x", maxSharedWord)); !ok {
		t.Error("a word of the longest length is not shared")
	}
}
