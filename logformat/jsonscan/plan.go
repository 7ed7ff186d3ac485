package jsonscan

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// ReadFunc reads a value into p, a pointer to the value's type.
type ReadFunc func(s *Scanner, p unsafe.Pointer, w *WarnList) bool

// RawFlexible is a flexible type's raw twin of DecodeFlex: it reads the
// value as DecodeFlex does, or gives up.
type RawFlexible interface {
	ScanFlex(s *Scanner, w *WarnList) bool
}

// Plan is a struct type's plan: its fields, found by their name's
// slot in keyIndex.
type Plan struct {
	fields []Field
	bySlot [keySlots]uint8 // 1 + the index in fields; 0: no field of that name
	dupOK  bool            // a name written twice is read again; else the scanner gives up
	nested []reflect.Type  // the struct types of its fields, and of their pointers
}

// Field is a plan's field: its member name, where it lies in the struct
// (Off), how its value is read, and, for a Streamed type, how it reads
// itself from a Stream.
type Field struct {
	name   string
	Off    uintptr
	read   ReadFunc
	Stream func(r *Stream, p unsafe.Pointer, w *WarnList) bool // a Streamed type's; nil for others
}

// Arena holds what a scan's pointers point to, in place of the heap:
// alloc is a zero value of type t, or nil to leave it to the heap.
type Arena interface {
	Alloc(t reflect.Type) unsafe.Pointer
}

// Streamed is a type whose values may be as large as a whole document
// (a debug bundle's events): the raw document path reads a member of it
// from its window, a step at a time (Stream), not whole.
type Streamed interface {
	StreamFrom(r *Stream, w *WarnList) bool
}

var (
	rawPlans   = map[reflect.Type]*Plan{}
	rawReaders = map[reflect.Type]ReadFunc{}
)

// PlanOf is the plan of struct type t, made on first use: by the
// package's plan variables, while it initialises.
func PlanOf(t reflect.Type) *Plan {
	if p := rawPlans[t]; p != nil {
		return p
	}
	if keyIndex != nil {
		panic("jsonscan: the plan of " + t.String() + " is made after Index: make it in a package variable")
	}
	p := &Plan{}
	rawPlans[t] = p // before its fields: a document holds documents
	p.addFields(t, 0)
	return p
}

// addFields adds struct type t's fields, at off in the planned struct; an
// embedded struct's fields (embedded in Go, or tagged embed) are the planned
// struct's own, as the reflective decoder reads them.
func (p *Plan) addFields(t reflect.Type, off uintptr) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" && (f.Anonymous || opts == "embed") && f.Type.Kind() == reflect.Struct {
			p.addFields(f.Type, off+f.Offset)
			continue
		}
		if f.Anonymous && name == "" {
			panic("jsonscan: " + t.String() + " embeds " + f.Type.String() + ", which a plan does not read")
		}
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" { // the reflective decoder would read the Go name
			panic("jsonscan: " + t.String() + "." + f.Name + " has no JSON name")
		}
		if slices.ContainsFunc(p.fields, func(g Field) bool { return g.name == name }) {
			panic("jsonscan: two fields are named " + name + ": the reflective decoder would read neither")
		}
		if len(p.fields) == 255 { // bySlot's and read's bounds
			panic("jsonscan: " + t.String() + " has too many fields for a plan")
		}
		field := Field{name: name, Off: off + f.Offset, read: rawReaderOf(f.Type)}
		if reflect.PointerTo(f.Type).Implements(rawStreamedType) {
			ft := f.Type
			field.Stream = func(r *Stream, p unsafe.Pointer, w *WarnList) bool {
				return reflect.NewAt(ft, p).Interface().(Streamed).StreamFrom(r, w)
			}
		}
		p.fields = append(p.fields, field)
		if st := f.Type; st.Kind() == reflect.Struct || st.Kind() == reflect.Pointer && st.Elem().Kind() == reflect.Struct {
			if st.Kind() == reflect.Pointer {
				st = st.Elem()
			}
			if rawPlans[st] != nil {
				p.nested = append(p.nested, st)
			}
		}
	}
}

// Index indexes every name the plans match (fieldKeys, keyIndex) and gives
// each plan its fields' slots. The package that scans calls it in its init,
// once its package variables have made every plan; a plan is made before
// Index, and a scan runs after it.
func Index() {
	fieldKeys = map[string]string{}
	for _, p := range rawPlans {
		for _, f := range p.fields {
			fieldKeys[f.name] = f.name
		}
	}
	keyIndex = new([keySlots]string)
	for _, k := range slices.Sorted(maps.Keys(fieldKeys)) { // the same table every run
		i := keySlot(k)
		for keyIndex[i] != "" {
			i = (i + 1) % keySlots
		}
		keyIndex[i] = k
	}
	for _, p := range rawPlans {
		for k, f := range p.fields {
			slot, _ := fieldSlot(f.name)
			p.bySlot[slot] = uint8(k + 1)
		}
	}
}

// DupOK makes plan, and the plans of the structs it holds, read a name
// written twice again, the last value over the first (merged, for an
// object), as the general decoder does. Only plans whose fields are
// leaves and structs may: a flexible type's twins need not agree on a
// repeated value.
func DupOK(plan *Plan) *Plan {
	plan.dupOK = true
	for _, t := range plan.nested {
		DupOK(rawPlans[t])
	}
	return plan
}

var (
	strType         = reflect.TypeFor[Str]()
	numType         = reflect.TypeFor[Num]()
	timeType        = reflect.TypeFor[Time]()
	rawFlexibleType = reflect.TypeFor[RawFlexible]()
	rawStreamedType = reflect.TypeFor[Streamed]()
	flexibleType    = reflect.TypeFor[Flexible]()
)

func giveUp(*Scanner, unsafe.Pointer, *WarnList) bool { return false }

// GivesUp lists the flexible types planned without a raw twin: a value
// of any of them makes the scanner give up, and the reflective decoder
// reads the line or document that holds it.
func GivesUp() []reflect.Type {
	var ts []reflect.Type
	for t := range rawReaders {
		if pt := reflect.PointerTo(t); pt.Implements(flexibleType) && !pt.Implements(rawFlexibleType) {
			ts = append(ts, t)
		}
	}
	return ts
}

// rawReaderOf is the reader of type t's values.
func rawReaderOf(t reflect.Type) ReadFunc {
	if r := rawReaders[t]; r != nil {
		return r
	}
	r := newRawReader(t)
	rawReaders[t] = r
	return r
}

func newRawReader(t reflect.Type) ReadFunc {
	switch {
	case reflect.PointerTo(t).Implements(rawFlexibleType):
		return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool {
			return reflect.NewAt(t, p).Interface().(RawFlexible).ScanFlex(s, w)
		}
	case reflect.PointerTo(t).Implements(flexibleType):
		return giveUp // read only by the reflective decoder
	case t == strType:
		return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool { return s.anyStr((*Str)(p), w) }
	case t == numType:
		return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool { return s.num((*Num)(p), w) }
	case t == timeType:
		return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool { return s.anyTime((*Time)(p), w) }
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(s *Scanner, p unsafe.Pointer, _ *WarnList) bool { return s.bool((*bool)(p)) }
	case reflect.Struct:
		plan := PlanOf(t)
		return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool { return plan.Read(s, p, w) }
	case reflect.Pointer:
		return PointerReader(t.Elem())
	case reflect.Slice:
		return rawSliceOf(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String && t.Elem() == numType {
			return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool { return s.numMap((*map[string]Num)(p), w) }
		}
	}
	return giveUp
}

// PointerReader reads a pointer to a value of type t as the general decoder
// does: null clears it; a value fills what it points to, made if it is
// nil (in the scan's arena, when it has one for the type).
func PointerReader(t reflect.Type) ReadFunc {
	if t.Kind() == reflect.Bool {
		return func(s *Scanner, p unsafe.Pointer, _ *WarnList) bool { return s.boolPtr((**bool)(p)) }
	}
	pt := reflect.PointerTo(t)
	if t.Kind() != reflect.Struct || t == strType || t == numType || t == timeType || pt.Implements(flexibleType) || pt.Implements(rawFlexibleType) {
		return giveUp // only a pointer to a bool, or to a struct read by plan, is read here
	}
	plan := PlanOf(t)
	return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool {
		pp := (*unsafe.Pointer)(p)
		if s.Null() {
			*pp = nil
			return true
		}
		if s.Peek() != '{' {
			return false
		}
		if *pp == nil && s.Arena != nil {
			*pp = s.Arena.Alloc(t)
		}
		if *pp == nil {
			*pp = reflect.New(t).UnsafePointer()
		}
		return plan.Read(s, *pp, w)
	}
}

// rawSliceOf reads a slice as the general decoder does: null clears it, an
// array makes it (empty, not nil, for []), each element read as its type
// is; an element its type's reader cannot take (a struct's null, say)
// gives up.
func rawSliceOf(t reflect.Type) ReadFunc {
	elem := rawReaderOf(t.Elem())
	return func(s *Scanner, p unsafe.Pointer, w *WarnList) bool {
		v := reflect.NewAt(t, p).Elem()
		if s.Null() {
			v.SetZero()
			return true
		}
		if s.Peek() != '[' {
			return false
		}
		v.Set(reflect.MakeSlice(t, 0, 4))
		return s.Elements(func() bool {
			n := v.Len()
			v.Grow(1)
			v.SetLen(n + 1)
			return elem(s, v.Index(n).Addr().UnsafePointer(), w)
		})
	}
}

// Field is the plan's Field of that name, nil for none.
func (plan *Plan) Field(name string) *Field {
	slot, ok := fieldSlot(name)
	if !ok || plan.bySlot[slot] == 0 {
		return nil
	}
	return &plan.fields[plan.bySlot[slot]-1]
}

// Read reads an object into the struct at p: each member with a field of
// its name by the field's reader, every other member skipped. A name Read
// twice gives up unless the plan is dupOK, as does nesting deeper than
// maxRawDepth.
func (plan *Plan) Read(s *Scanner, p unsafe.Pointer, w *WarnList) bool {
	if s.depth == maxRawDepth {
		return false
	}
	var seen [4]uint64 // fields read, by index (a plan has at most 255)
	s.depth++
	ok := s.members(func(name []byte) bool {
		slot, known := fieldSlot(name)
		k := int(plan.bySlot[slot]) - 1
		if !known || k < 0 {
			return s.Skip()
		}
		if seen[k/64]&(1<<(k%64)) != 0 && !plan.dupOK {
			return false
		}
		seen[k/64] |= 1 << (k % 64)
		f := &plan.fields[k]
		return f.read(s, unsafe.Add(p, f.Off), w)
	})
	s.depth--
	return ok
}

// TextOrObject is DecodeTextOrObject's raw twin, the object read by
// plan; another kind gives up.
func TextOrObject[O any](s *Scanner, w *WarnList, plan *Plan, text func(string), obj func(*O)) bool {
	switch s.Peek() {
	case '"':
		var v Str
		ok := s.Str(&v)
		text(v.V)
		return ok
	case '{':
		var o O
		ok := plan.Read(s, unsafe.Pointer(&o), w)
		obj(&o)
		return ok
	}
	return s.Null()
}
