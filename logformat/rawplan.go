package logformat

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// The raw scanner reads every format's documents by one mechanism: a plan
// made once per struct type from the json tags the reflective decoder
// reads, so that the two cannot disagree on a schema. Each member is
// matched to its field by name and read by the reader of the field's
// type: Str, Num, Time, bool, pointers, slices and maps of them, nested
// structs, and the flexible types (a value of several JSON shapes), which
// read themselves with rawFlex beside their decodeFlex. Whatever a plan
// cannot read exactly as the reflective decoder would (a kind it has no
// reader for, a name written twice, a value of an unexpected kind) gives
// up, and the reflective decoder reads the line or document. See
// rawscan.go for why the raw scanner exists.

// rawReader reads a value into p, a pointer to the value's type.
type rawReader func(s *rawScan, p unsafe.Pointer, w *warnList) bool

// rawFlexible is a flexible type's raw twin of decodeFlex: it reads the
// value as decodeFlex does, or gives up.
type rawFlexible interface {
	rawFlex(s *rawScan, w *warnList) bool
}

// rawStruct is a struct type's plan: its fields, found by their name's
// slot in keyIndex.
type rawStruct struct {
	fields []rawField
	bySlot [keySlots]uint8 // 1 + the index in fields; 0: no field of that name
	dupOK  bool            // a name written twice is read again; else the scanner gives up
	nested []reflect.Type  // the struct types of its fields, and of their pointers
}

type rawField struct {
	name   string
	off    uintptr
	read   rawReader
	stream func(r *rawStream, p unsafe.Pointer, w *warnList) bool // a rawStreamed type's; nil for others
}

// rawStreamed is a type whose values may be as large as a whole document
// (a debug bundle's events): the raw document path reads a member of it
// from its window, a step at a time (rawStream), not whole.
type rawStreamed interface {
	streamFrom(r *rawStream, w *warnList) bool
}

var (
	rawPlans     = map[reflect.Type]*rawStruct{}
	rawReaders   = map[reflect.Type]rawReader{}
	documentPlan = rawPlanOf(reflect.TypeFor[document]()) // a whole line or document
)

// rawPlanOf is the plan of struct type t, made on first use: by the
// package's plan variables, while it initialises.
func rawPlanOf(t reflect.Type) *rawStruct {
	if p := rawPlans[t]; p != nil {
		return p
	}
	if keyIndex != nil {
		panic("logformat: the plan of " + t.String() + " is made after init: make it in a package variable")
	}
	p := &rawStruct{}
	rawPlans[t] = p // before its fields: a document holds documents
	p.addFields(t, 0)
	return p
}

// addFields adds struct type t's fields, at off in the planned struct; an
// embedded struct's fields are the planned struct's own, as the reflective
// decoder reads them.
func (p *rawStruct) addFields(t reflect.Type, off uintptr) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			p.addFields(f.Type, off+f.Offset)
			continue
		}
		if f.Anonymous && name == "" {
			panic("logformat: " + t.String() + " embeds " + f.Type.String() + ", which a plan does not read")
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		if slices.ContainsFunc(p.fields, func(g rawField) bool { return g.name == name }) {
			panic("logformat: two fields are named " + name + ": the reflective decoder would read neither")
		}
		if len(p.fields) == 255 { // bySlot's and read's bounds
			panic("logformat: " + t.String() + " has too many fields for a plan")
		}
		field := rawField{name: name, off: off + f.Offset, read: rawReaderOf(f.Type)}
		if reflect.PointerTo(f.Type).Implements(rawStreamedType) {
			ft := f.Type
			field.stream = func(r *rawStream, p unsafe.Pointer, w *warnList) bool {
				return reflect.NewAt(ft, p).Interface().(rawStreamed).streamFrom(r, w)
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

// init indexes every name the plans match (fieldKeys, keyIndex) and gives
// each plan its fields' slots: the plans are made by the package's
// variables, which are set before init runs.
func init() {
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

// dupOK makes plan, and the plans of the structs it holds, read a name
// written twice again, the last value over the first (merged, for an
// object), as the general decoder does. Only plans whose fields are
// leaves and structs may: a flexible type's twins need not agree on a
// repeated value.
func dupOK(plan *rawStruct) *rawStruct {
	plan.dupOK = true
	for _, t := range plan.nested {
		dupOK(rawPlans[t])
	}
	return plan
}

var (
	strType         = reflect.TypeFor[Str]()
	numType         = reflect.TypeFor[Num]()
	timeType        = reflect.TypeFor[Time]()
	rawFlexibleType = reflect.TypeFor[rawFlexible]()
	rawStreamedType = reflect.TypeFor[rawStreamed]()
	messageType     = reflect.TypeFor[apiMessage]()
	flexibleType    = reflect.TypeFor[flexible]()
)

func giveUp(*rawScan, unsafe.Pointer, *warnList) bool { return false }

// rawReaderOf is the reader of type t's values.
func rawReaderOf(t reflect.Type) rawReader {
	if r := rawReaders[t]; r != nil {
		return r
	}
	r := newRawReader(t)
	rawReaders[t] = r
	return r
}

func newRawReader(t reflect.Type) rawReader {
	switch {
	case reflect.PointerTo(t).Implements(rawFlexibleType):
		return func(s *rawScan, p unsafe.Pointer, w *warnList) bool {
			return reflect.NewAt(t, p).Interface().(rawFlexible).rawFlex(s, w)
		}
	case reflect.PointerTo(t).Implements(flexibleType):
		return giveUp // read only by the reflective decoder
	case t == strType:
		return func(s *rawScan, p unsafe.Pointer, w *warnList) bool { return s.anyStr((*Str)(p), w) }
	case t == numType:
		return func(s *rawScan, p unsafe.Pointer, w *warnList) bool { return s.num((*Num)(p), w) }
	case t == timeType:
		return func(s *rawScan, p unsafe.Pointer, w *warnList) bool { return s.anyTime((*Time)(p), w) }
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(s *rawScan, p unsafe.Pointer, _ *warnList) bool { return s.bool((*bool)(p)) }
	case reflect.Struct:
		plan := rawPlanOf(t)
		return func(s *rawScan, p unsafe.Pointer, w *warnList) bool { return plan.read(s, p, w) }
	case reflect.Pointer:
		return rawPointer(t.Elem())
	case reflect.Slice:
		return rawSliceOf(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String && t.Elem() == numType {
			return func(s *rawScan, p unsafe.Pointer, w *warnList) bool { return s.numMap((*map[string]Num)(p), w) }
		}
	}
	return giveUp
}

// rawPointer reads a pointer to a value of type t as the general decoder
// does: null clears it; a value fills what it points to, made if it is
// nil (a Claude Code message read from a line, in the line arena).
func rawPointer(t reflect.Type) rawReader {
	if t.Kind() == reflect.Bool {
		return func(s *rawScan, p unsafe.Pointer, _ *warnList) bool { return s.boolPtr((**bool)(p)) }
	}
	pt := reflect.PointerTo(t)
	if t.Kind() != reflect.Struct || t == strType || t == numType || t == timeType || pt.Implements(flexibleType) || pt.Implements(rawFlexibleType) {
		return giveUp // only a pointer to a bool, or to a struct read by plan, is read here
	}
	plan := rawPlanOf(t)
	return func(s *rawScan, p unsafe.Pointer, w *warnList) bool {
		pp := (*unsafe.Pointer)(p)
		if s.null() {
			*pp = nil
			return true
		}
		if s.peek() != '{' {
			return false
		}
		if *pp == nil {
			if t == messageType && s.arena != nil {
				*pp = unsafe.Pointer(s.arena.message())
			} else {
				*pp = reflect.New(t).UnsafePointer()
			}
		}
		return plan.read(s, *pp, w)
	}
}

// rawSliceOf reads a slice as the general decoder does: null clears it, an
// array makes it (empty, not nil, for []), each element read as its type
// is; an element its type's reader cannot take (a struct's null, say)
// gives up.
func rawSliceOf(t reflect.Type) rawReader {
	elem := rawReaderOf(t.Elem())
	return func(s *rawScan, p unsafe.Pointer, w *warnList) bool {
		v := reflect.NewAt(t, p).Elem()
		if s.null() {
			v.SetZero()
			return true
		}
		if s.peek() != '[' {
			return false
		}
		v.Set(reflect.MakeSlice(t, 0, 4))
		return s.elements(func() bool {
			n := v.Len()
			v.Grow(1)
			v.SetLen(n + 1)
			return elem(s, v.Index(n).Addr().UnsafePointer(), w)
		})
	}
}

// field is the plan's field of that name, nil for none.
func (plan *rawStruct) field(name string) *rawField {
	slot, ok := fieldSlot(name)
	if !ok || plan.bySlot[slot] == 0 {
		return nil
	}
	return &plan.fields[plan.bySlot[slot]-1]
}

// read reads an object into the struct at p: each member with a field of
// its name by the field's reader, every other member skipped. A name read
// twice gives up unless the plan is dupOK, as does nesting deeper than
// maxRawDepth.
func (plan *rawStruct) read(s *rawScan, p unsafe.Pointer, w *warnList) bool {
	if s.depth == maxRawDepth {
		return false
	}
	var seen [4]uint64 // fields read, by index (a plan has at most 255)
	s.depth++
	ok := s.members(func(name []byte) bool {
		slot, known := fieldSlot(name)
		k := int(plan.bySlot[slot]) - 1
		if !known || k < 0 {
			return s.skip()
		}
		if seen[k/64]&(1<<(k%64)) != 0 && !plan.dupOK {
			return false
		}
		seen[k/64] |= 1 << (k % 64)
		f := &plan.fields[k]
		return f.read(s, unsafe.Add(p, f.off), w)
	})
	s.depth--
	return ok
}

// rawTextOrObject is decodeTextOrObject's raw twin, the object read by
// plan; another kind gives up.
func rawTextOrObject[O any](s *rawScan, w *warnList, plan *rawStruct, text func(string), obj func(*O)) bool {
	switch s.peek() {
	case '"':
		var v Str
		ok := s.str(&v)
		text(v.V)
		return ok
	case '{':
		var o O
		ok := plan.read(s, unsafe.Pointer(&o), w)
		obj(&o)
		return ok
	}
	return s.null()
}
