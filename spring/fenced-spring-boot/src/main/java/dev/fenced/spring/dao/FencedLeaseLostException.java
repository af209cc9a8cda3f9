package dev.fenced.spring.dao;

import org.springframework.dao.ConcurrencyFailureException;

/** A write refused because the lease whose token it carried was lost: the caller no longer holds it. */
public class FencedLeaseLostException extends ConcurrencyFailureException {

    private static final long serialVersionUID = 1L;

    public FencedLeaseLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
