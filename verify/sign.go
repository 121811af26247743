package verify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentlab/agentlab/hashid"
)

// Signatures (docs/verify.md, "Signing"): an ed25519 signature over the
// UTF-8 bytes of the seal hash as written, "b3:<64 hex>". Signing the hash
// rather than the bundle means a signature stays valid for every export of
// the same sealed run (report, bundle, run directory).

// Signature is a signed seal as bundles and run.json carry it.
type Signature struct {
	Alg       string `json:"alg"`        // "ed25519"
	Sig       string `json:"sig"`        // base64 (standard, padded) of the 64-byte signature
	PublicKey string `json:"public_key"` // base64 of the 32-byte public key
}

// Sign signs the seal hash with key.
func Sign(seal hashid.ID, key ed25519.PrivateKey) Signature {
	sig := ed25519.Sign(key, []byte(seal.String()))
	return Signature{Alg: "ed25519", Sig: base64.StdEncoding.EncodeToString(sig), PublicKey: base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))}
}

// VerifySignature verifies sig over seal. When trusted is non-nil, the
// signature must also be made by that key.
func VerifySignature(seal string, sig Signature, trusted ed25519.PublicKey) error {
	if sig.Alg != "ed25519" {
		return fmt.Errorf("signature algorithm %q is not ed25519", sig.Alg)
	}
	pub, err := base64.StdEncoding.DecodeString(sig.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return errors.New("the embedded public key is not a base64 ed25519 key")
	}
	raw, err := base64.StdEncoding.DecodeString(sig.Sig)
	if err != nil || len(raw) != ed25519.SignatureSize {
		return errors.New("the signature is not 64 bytes of base64")
	}
	if trusted != nil && !bytes.Equal(trusted, pub) {
		return fmt.Errorf("the seal is signed by key %s, not by the trusted key %s", KeyID(pub), KeyID(trusted))
	}
	if !ed25519.Verify(pub, []byte(seal), raw) {
		return fmt.Errorf("the signature by key %s does not match seal %s", KeyID(pub), seal)
	}
	return nil
}

// KeyID names a public key in messages: "ed25519:" and the first 12 hex
// digits of the BLAKE3 of its 32 bytes.
func KeyID(pub []byte) string { return "ed25519:" + hashid.Sum(pub).Short() }

// Key file formats: the private key is PKCS#8 in a PEM block "PRIVATE KEY"
// (what `openssl genpkey -algorithm ed25519` writes), mode 0600; the public
// key is PKIX in a PEM block "PUBLIC KEY". A public key file may also hold
// just the base64 of the 32 raw bytes, as run.json records it.

// GenerateKey writes a new key pair to path (private) and path+".pub". It
// refuses to overwrite an existing file.
func GenerateKey(path string) (ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	p8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	px, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	if err := writeNew(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}), 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(path+".pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: px}), 0o644); err != nil {
		os.Remove(path)
		return nil, err
	}
	return pub, nil
}

func writeNew(path string, b []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoadPrivateKey reads a private key file written by GenerateKey.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := readCapped(path, 64<<10)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%s: not a PEM \"PRIVATE KEY\" file; create one with agentlab keys generate", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: the key is a %T, not ed25519", path, k)
	}
	return priv, nil
}

// LoadPublicKey reads a public key file: PEM "PUBLIC KEY" (PKIX) or the
// base64 of the 32 raw bytes.
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	b, err := readCapped(path, 64<<10)
	if err != nil {
		return nil, err
	}
	if blk, _ := pem.Decode(b); blk != nil {
		if blk.Type != "PUBLIC KEY" {
			return nil, fmt.Errorf("%s: PEM block %q, want \"PUBLIC KEY\" (pass the .pub file, not the private key)", path, blk.Type)
		}
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		pub, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("%s: the key is a %T, not ed25519", path, k)
		}
		return pub, nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%s: not a PEM public key nor the base64 of a 32-byte ed25519 key", path)
	}
	return ed25519.PublicKey(raw), nil
}
