// Package fuzz lists the domains and holds the native fuzz targets (in its
// tests) with their seed corpora under testdata/fuzz/.
package fuzz

import (
	"slices"

	"github.com/legalfuzz/legalfuzz/fuzz/blockscale"
	"github.com/legalfuzz/legalfuzz/fuzz/cpasync"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/fuzz/kindword"
	"github.com/legalfuzz/legalfuzz/fuzz/ldsm"
	"github.com/legalfuzz/legalfuzz/fuzz/matdesc"
	"github.com/legalfuzz/legalfuzz/fuzz/mma"
	"github.com/legalfuzz/legalfuzz/fuzz/nvvmop"
	"github.com/legalfuzz/legalfuzz/fuzz/schedule"
	"github.com/legalfuzz/legalfuzz/fuzz/swizzle"
	"github.com/legalfuzz/legalfuzz/fuzz/tmadesc"
	"github.com/legalfuzz/legalfuzz/fuzz/tmamode"
	"github.com/legalfuzz/legalfuzz/fuzz/umma"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcnt"
	"github.com/legalfuzz/legalfuzz/fuzz/waitcntasm"
	"github.com/legalfuzz/legalfuzz/fuzz/wgmma"
)

// all lists every domain, in the order `legalfuzz domains` prints them.
var all = []domain.Domain{
	tmadesc.Domain,
	tmamode.Domain,
	matdesc.Domain,
	kindword.Domain,
	ldsm.Domain,
	umma.Domain,
	blockscale.Domain,
	swizzle.Domain,
	wgmma.Domain,
	mma.Domain,
	cpasync.Domain,
	schedule.Domain,
	waitcnt.Domain,
	waitcntasm.Domain,
	nvvmop.Domain,
}

// Domains returns every domain.
func Domains() []domain.Domain { return all }

// optIn are the domains a campaign judges only when --domains names them:
// nvvmop's judge runs three tools a case, one case at a time, and its 211
// seeds alone would take a 60 s campaign's minute (until it batches).
var optIn = []string{nvvmop.Name}

// Campaigned returns the domains a campaign judges when it names none.
func Campaigned() []domain.Domain {
	return slices.DeleteFunc(slices.Clone(all), func(d domain.Domain) bool { return slices.Contains(optIn, d.Name) })
}

// Lookup finds a domain by name.
func Lookup(name string) (domain.Domain, bool) {
	for _, d := range all {
		if d.Name == name {
			return d, true
		}
	}
	return domain.Domain{}, false
}
