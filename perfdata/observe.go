package perfdata

// observe updates the file's state from records that define it, as they
// are read (before any reordering): HEADER_ATTR (pipe mode attrs),
// EVENT_UPDATE names, HEADER_FEATURE sections, TIME_CONV.
func (f *File) observe(raw *RawRecord) {
	switch raw.Type {
	case RecordTypeHeaderAttr:
		c := cursor{b: raw.Data, off: 8, base: raw.Offset}
		attr, ids, err := decodeHeaderAttr(&c)
		if err != nil {
			return
		}
		a := &Attr{EventAttr: attr, IDs: ids, Index: len(f.Attrs)}
		f.Attrs = append(f.Attrs, a)
		f.buildIDMap()
	case RecordTypeEventUpdate:
		if len(raw.Data) >= 24 && le64(raw.Data[8:]) == EventUpdateName {
			if a := f.idToAttr[le64(raw.Data[16:])]; a != nil {
				a.Name, a.Named = cstring(raw.Data[24:]), true
			}
		}
	case RecordTypeHeaderFeature:
		// In file mode the header's sections are authoritative.
		if f.Pipe && len(raw.Data) >= 16 {
			feat := Feature(le64(raw.Data[8:]))
			if feat >= 0 && feat < MaxFeatures {
				f.featRaw[feat] = append([]byte(nil), raw.Data[16:]...)
				f.feats = nil
				if feat == FeatEventDesc {
					f.nameAttrsFrom(f.featRaw[feat])
				}
			}
		}
	case RecordTypeTimeConv:
		d := decoder{f: f}
		if r, err := d.decode(raw); err == nil {
			f.timeConv = r.(*RecordTimeConv)
		}
	}
}

// TimeConv returns the file's TIME_CONV record once iteration has read it
// (perf writes it near the start of the data), or nil.
func (f *File) TimeConv() *RecordTimeConv { return f.timeConv }
