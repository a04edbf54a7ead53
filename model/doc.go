// Package model holds mailsift's mail vocabulary: addresses, flags,
// locations, messages, threads and mailboxes, plus the body parts the
// parser splits text into. It knows no library types: sources translate
// into it at their boundary, and the store depends on it alone. The JSON
// contracts other programs speak live in model/contract.
package model
