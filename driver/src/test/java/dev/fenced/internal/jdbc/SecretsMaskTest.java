package dev.fenced.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** {@link Secrets#mask}: what it hides and what it leaves, on URLs alone (SecretsTest covers the messages). */
class SecretsMaskTest {

    @Test
    void everyParameterWhoseNameSaysSecretIsMasked() {
        assertEquals(
                "jdbc:postgresql://h/db?user=u&password=***&sslpassword=***&sslkeypassword=***",
                Secrets.mask("jdbc:postgresql://h/db?user=u&password=p1&sslpassword=p2&sslkeypassword=p3"));
        assertEquals(
                "jdbc:x://h/db?api.token=***&client-secret=***&pwd=***&passwd=***&credentials=***",
                Secrets.mask("jdbc:x://h/db?api.token=a&client-secret=b&pwd=c&passwd=d&credentials=e"));
    }

    @Test
    void namesAreMatchedWithoutRegardToCaseAndSemicolonsSeparateToo() {
        assertEquals(
                "jdbc:sqlserver://h;user=u;Password=***;db=x",
                Secrets.mask("jdbc:sqlserver://h;user=u;Password=p;db=x"));
    }

    @Test
    void userInfoPasswordsAreMaskedButTheUserIsKept() {
        assertEquals("jdbc:postgresql://alice:***@h:5432/db", Secrets.mask("jdbc:postgresql://alice:s3cret@h:5432/db"));
        assertEquals(
                "jdbc:postgresql://alice@h/db",
                Secrets.mask("jdbc:postgresql://alice@h/db"),
                "no password, nothing to mask");
    }

    @Test
    void otherParametersAndNullPassThrough() {
        String plain = "jdbc:postgresql://h/db?user=u&ssl=true&ApplicationName=tokens-app";
        assertEquals(plain, Secrets.mask(plain));
        assertNull(Secrets.mask(null));
    }
}
