package jsonscan

// WarnList collects warnings to be counted only if a decode succeeds.
type WarnList struct{ Kinds []string }

// Warn adds kind to the list.
func (l *WarnList) Warn(kind string) { l.Kinds = append(l.Kinds, kind) }

// fieldKeys are the names the raw scanner's plans match; keyIndex holds
// them open-addressed on a slot made from a name's length and three of
// its bytes: every transcript line has dozens of names, and hashing each
// whole for a map cost more than its decoding did. Both are made by Index
// (plan.go).
var (
	fieldKeys map[string]string
	keyIndex  *[keySlots]string
)

const keySlots = 512 // a power of two, several times len(fieldKeys)

func keySlot[T string | []byte](name T) uint {
	n := uint(len(name))
	if n == 0 {
		return 0
	}
	return (n*240 + uint(name[0])*248 + uint(name[n/2])*109 + uint(name[n-1])*130) % keySlots
}

// fieldSlot is where name is in keyIndex.
func fieldSlot[T string | []byte](name T) (uint, bool) {
	for i := keySlot(name); keyIndex[i] != ""; i = (i + 1) % keySlots {
		if keyIndex[i] == string(name) {
			return i, true
		}
	}
	return 0, false
}

// MaxProbe is how many slots past its own the farthest key of the index
// sits: what a lookup of a name in it costs at most, beyond one slot.
func MaxProbe() int {
	n := 0
	for k := range fieldKeys {
		probe := 0
		for i := keySlot(k); keyIndex[i] != k; i = (i + 1) % keySlots {
			probe++
		}
		n = max(n, probe)
	}
	return n
}
