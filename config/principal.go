package config

import "mailsift/model"

// Address is the principal as a mail address.
func (p Principal) Address() model.Address {
	return model.Address{Name: p.Name, Email: p.Email}
}
