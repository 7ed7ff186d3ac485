package metrics

import (
	"fmt"
	"reflect"
)

// Merge adds everything o has counted to a.
func (a *Accumulator) Merge(o *Accumulator) {
	mergeInto(reflect.ValueOf(&a.tally).Elem(), reflect.ValueOf(&o.tally).Elem())
}

// mergeInto adds src to dst, both of one type, by one rule for every part
// of a tally, so that a new figure's state merges without code of its own:
// a type with a Merge method merges itself (Dist, RunIndex, and the
// examples that keep the first by path); otherwise numbers add, arrays and
// structs add field by field, maps key by key (a key dst lacks starts from
// zero), and lists append. Floats have no rule: their sum would depend on
// the order of the merges (a Dist sums in fixed point).
func mergeInto(dst, src reflect.Value) {
	// Its own Merge, taking its own type: one promoted from an embedded field would merge that field alone.
	if m := dst.Addr().MethodByName("Merge"); m.IsValid() && m.Type().NumIn() == 1 && m.Type().In(0) == dst.Addr().Type() {
		m.Call([]reflect.Value{src.Addr()})
		return
	}
	switch dst.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		dst.SetInt(dst.Int() + src.Int())
	case reflect.Array:
		for i := range dst.Len() {
			mergeInto(dst.Index(i), src.Index(i))
		}
	case reflect.Struct:
		for i := range dst.NumField() {
			mergeInto(dst.Field(i), src.Field(i))
		}
	case reflect.Map:
		if dst.IsNil() { // made even for an empty src: code that adds to it expects a map
			dst.Set(reflect.MakeMap(dst.Type()))
		}
		elem := dst.Type().Elem()
		for it := src.MapRange(); it.Next(); {
			k, cur := it.Key(), dst.MapIndex(it.Key())
			if elem.Kind() == reflect.Pointer {
				if !cur.IsValid() {
					cur = reflect.New(elem.Elem())
					dst.SetMapIndex(k, cur)
				}
				mergeInto(cur.Elem(), it.Value().Elem())
				continue
			}
			v := reflect.New(elem).Elem()
			if cur.IsValid() {
				v.Set(cur)
			}
			mergeInto(v, it.Value())
			dst.SetMapIndex(k, v)
		}
	case reflect.Slice:
		dst.Set(reflect.AppendSlice(dst, src))
	default:
		panic(fmt.Sprintf("metrics: a tally holds a %s, which merges by no rule", dst.Type()))
	}
}

func addCounts[K comparable](dst, src map[K]int64) {
	for k, v := range src {
		dst[k] += v
	}
}
